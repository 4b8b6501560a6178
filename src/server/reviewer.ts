/**
 * Who evaluates a review once its body has been read: in-process by default (Lambda, Workers, the CLI,
 * one review per invocation), or a pool of worker threads on the Node server (src/adapters/pool), so
 * probes, /metrics and other clusters never wait for a review in progress.
 */
import type { Limits } from './limits.js';
import type { PolicySetState } from '../policyset/index.js';
import { answerReviewBody, type ReviewAnswer, type ReviewBody } from './review.js';
import type { ClientSignal } from './client-signal.js';

export interface ReviewJob {
  /**
   * The request body, read and bounded by the route: its text when it is small and UTF-8 or when the
   * platform held it as text, else its bytes (src/server/body.ts); not parsed yet (a pool parses it, and
   * decodes bytes, off the main thread: see answerReviewBody).
   */
  body: ReviewBody;
  /**
   * Which policy set: `default` for `POST /mutate`, `clusters/<name>` for a cluster's routes (the prefix
   * keeps a cluster's set apart from the default one whatever its name).
   */
  setName: string;
  /** The set's state, read once for this request. */
  state: PolicySetState;
  limits: Limits;
  /** Aborts when the client has gone away (the request's AbortSignal, or its adapter's lighter one). */
  signal: ClientSignal;
}

export type Reviewer = (job: ReviewJob) => Promise<ReviewAnswer>;

/** Evaluates on the calling thread: the behaviour of every platform without a pool. */
export const inProcessReviewer: Reviewer = (job) =>
  answerReviewBody(job.body, job.state.set, job.limits.maxJsonDepth, {
    deadlineMs: job.limits.reviewDeadlineMs,
    maxValueBytes: job.limits.maxValueBytes,
    signal: job.signal,
  });
