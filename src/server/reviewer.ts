/**
 * Who evaluates a review once its body has been read: in-process by default (Lambda, Workers, the CLI,
 * one review per invocation), or a pool of worker threads on the Node server (src/adapters/pool), so
 * probes, /metrics and other clusters never wait for a review in progress.
 */
import type { Limits } from './limits.js';
import type { PolicySetState } from '../policyset/index.js';
import { answerReviewBody, type ReviewAnswer, type ReviewBody } from './review.js';

export interface ReviewJob {
  /**
   * The request body, read and bounded by the route: its bytes, or its text when the platform held it as
   * text; not decoded nor parsed yet (a pool does both off the main thread: see answerReviewBody).
   */
  body: ReviewBody;
  /**
   * Which policy set: `default` for `POST /mutate`, `clusters/<name>` for a cluster's routes (a cluster
   * may be named `default`, so the prefix keeps the two apart).
   */
  setName: string;
  /** The set's state, read once for this request. */
  state: PolicySetState;
  limits: Limits;
  /** Aborts when the client has gone away. */
  signal: AbortSignal;
}

export type Reviewer = (job: ReviewJob) => Promise<ReviewAnswer>;

/** Evaluates on the calling thread: the behaviour of every platform without a pool. */
export const inProcessReviewer: Reviewer = (job) =>
  answerReviewBody(job.body, job.state.set, job.limits.maxJsonDepth, {
    deadlineMs: job.limits.reviewDeadlineMs,
    maxValueBytes: job.limits.maxValueBytes,
    signal: job.signal,
  });
