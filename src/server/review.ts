/**
 * One AdmissionReview in, one answer out: parse, validate, evaluate the policy set, build the reply.
 * Shared by the HTTP route and `amender review`, so both give the same reply for the same review. No
 * Hono and no platform module here.
 */
import { allowReply, denyReply, replyExtras, validateReview, type AdmissionRequest, type ReviewReply } from '../admission/index.js';
import { evaluate, type PolicyOutcome } from '../engine/index.js';
import { DEFAULT_MAX_VALUE_BYTES, DEFAULT_REVIEW_DEADLINE_MS, ReviewGuard, type ReviewGuardOptions } from '../guard/index.js';
import { decodesToItself, JsonParseError, parseJson, type JsonValue } from '../json/index.js';
import type { PolicySet } from '../policyset/index.js';
import { statusBody, type HttpErrorCode, type StatusBody } from './status.js';

/** How a review ended, as counted in metrics and logs. */
export type ReviewOutcome =
  | 'allowed' // admitted, nothing to change
  | 'patched' // admitted with a patch
  | 'denied' // a policy failed under failurePolicy Fail (403 in the reply)
  | 'invalid' // the body is not a usable AdmissionReview (400)
  | 'too_large' // 413
  | 'timeout' // the body did not arrive in time (408)
  | 'unsupported' // not JSON (415)
  | 'unavailable' // no policy set loaded yet (503)
  | 'abandoned' // the client went away before its answer: nothing was sent (499 in logs)
  | 'error'; // the engine failed unexpectedly (500)

/** The identity of a reviewed object as logs may name it. */
export interface ReviewSubject {
  kind: string;
  namespace: string;
  name: string;
  operation: string;
}

export type ReviewAnswer =
  | {
      status: 200;
      body: ReviewReply;
      outcome: 'allowed' | 'patched' | 'denied';
      uid: string;
      patchOps: number;
      /** What each policy did (for per-policy metrics and logs; plain data, so it crosses worker threads). */
      outcomes?: readonly PolicyOutcome[];
      /** Which object, for log lines: never its content. */
      subject?: ReviewSubject;
      /**
       * `body` already serialized as JSON, when the evaluation did it off the main thread (a review worker):
       * the route sends it as it is.
       */
      bodyText?: string;
    }
  | { status: HttpErrorCode; body: StatusBody; outcome: Exclude<ReviewOutcome, 'allowed' | 'patched' | 'denied'>; uid?: string; error?: unknown };

/** The answer to a review whose client went away (`what` happened to it): never sent, counted apart. */
export function abandonedAnswer(what: string, extra: { uid?: string } = {}): ReviewAnswer {
  return failure(499, 'abandoned', `${what}: the client went away`, extra);
}

export function failure(
  status: HttpErrorCode,
  outcome: Exclude<ReviewOutcome, 'allowed' | 'patched' | 'denied'>,
  message: string,
  extra: { uid?: string; error?: unknown } = {},
): ReviewAnswer {
  return { status, body: statusBody(status, message), outcome, ...extra };
}

/** The bounds of one review's evaluation (src/guard); every member optional. */
export interface ReviewOptions {
  /** Milliseconds the evaluation may take from the call (default DEFAULT_REVIEW_DEADLINE_MS, 8000). */
  deadlineMs?: number;
  /** Largest value a review may build (default DEFAULT_MAX_VALUE_BYTES, 6 MiB). */
  maxValueBytes?: number;
  /** Cancels the evaluation when it fires (the client went away). */
  signal?: ReviewGuardOptions['signal'];
  /** Polled with the clock: true once the review is cancelled from outside (a worker pool). */
  isCancelled?: () => boolean;
  /** Called when a policy starts, with its index in `pipelinePolicies(set)` (src/engine). */
  onPolicyStart?: (ordinal: number) => void;
  /** Policies answered by their failurePolicy without running (src/engine, EngineOptions.outOfHeap). */
  outOfHeap?: readonly number[];
}

/** The guard for one review: its clock starts now. */
export function reviewGuard(options: ReviewOptions = {}): ReviewGuard {
  return new ReviewGuard({
    deadlineMs: options.deadlineMs ?? DEFAULT_REVIEW_DEADLINE_MS,
    maxValueBytes: options.maxValueBytes ?? DEFAULT_MAX_VALUE_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.isCancelled ? { isCancelled: options.isCancelled } : {}),
  });
}

/** Answers a review given as JSON text (the HTTP body). The deadline counts from this call. */
export function answerReviewText(text: string, set: PolicySet | undefined, maxJsonDepth: number, options: ReviewOptions = {}): Promise<ReviewAnswer> {
  return withErrorBoundary(async (seen) => {
    const guard = reviewGuard(options);
    let value: JsonValue;
    try {
      value = parseJson(text, { maxDepth: maxJsonDepth });
    } catch (err) {
      if (err instanceof JsonParseError) return failure(400, 'invalid', `malformed JSON: ${err.message}`);
      throw err;
    }
    return answerGuarded(value, set, guard, seen, options);
  });
}

/** Fatal on malformed input; a BOM is dropped. Stateless between calls. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF8 = new TextEncoder();

/**
 * A request body as the platform holds it: its bytes, or its text when it came as text (a Lambda event's
 * body), which is then not encoded to bytes only to be decoded back.
 */
export type ReviewBody = Uint8Array | string;

/**
 * The review text of a request body: strict UTF-8 and not blank, or the 400 answer saying why. Bytes are
 * decoded where the review is evaluated (a large body, in a review worker: off the main thread; a small
 * one comes as text, src/server/review-body.ts). A body given as text reads as its UTF-8 bytes would:
 * text that does not decode to itself (a lone surrogate, a leading byte-order mark) goes through those
 * bytes.
 */
export function reviewBodyText(body: ReviewBody): { ok: true; text: string } | { ok: false; answer: ReviewAnswer } {
  let text: string;
  if (typeof body === 'string' && decodesToItself(body)) text = body;
  else {
    try {
      text = STRICT_UTF8.decode(typeof body === 'string' ? UTF8.encode(body) : body);
    } catch {
      return { ok: false, answer: failure(400, 'invalid', 'request body is not valid UTF-8') };
    }
  }
  if (text.trim() === '') return { ok: false, answer: failure(400, 'invalid', 'empty request body: expected an AdmissionReview') };
  return { ok: true, text };
}

/** Answers a review given as the request body (see reviewBodyText). The deadline counts from this call. */
export async function answerReviewBody(body: ReviewBody, set: PolicySet | undefined, maxJsonDepth: number, options: ReviewOptions = {}): Promise<ReviewAnswer> {
  const decoded = reviewBodyText(body);
  if (!decoded.ok) return decoded.answer;
  return answerReviewText(decoded.text, set, maxJsonDepth, options);
}

/** Answers a parsed review (the CLI reads YAML too). The deadline counts from this call. */
export function answerReview(value: JsonValue, set: PolicySet | undefined, options: ReviewOptions = {}): Promise<ReviewAnswer> {
  return withErrorBoundary((seen) => answerGuarded(value, set, reviewGuard(options), seen, options));
}

/** The uid of the review being answered, once it is known (for the message of an internal error). */
interface Seen {
  uid?: string;
}

/**
 * The one error boundary of a review, on every platform (in-process, a pool's worker, Lambda, Workers,
 * the CLI). Bad input and every policy outcome are answers by the time they get here; anything thrown is
 * a bug of Amender. It is answered HTTP 500, not a denial: kube-apiserver treats a webhook's 500 as a
 * failed call and applies the webhook's own failurePolicy (Ignore admits, Fail rejects), whereas an
 * `allowed: false` reply is a rejection under every failurePolicy. The error goes to the access log with
 * its stack; the reply carries no detail of it.
 */
async function withErrorBoundary(answer: (seen: Seen) => Promise<ReviewAnswer>): Promise<ReviewAnswer> {
  const seen: Seen = {};
  try {
    return await answer(seen);
  } catch (error) {
    const uid = seen.uid;
    return failure(500, 'error', `internal error while evaluating ${uid === undefined ? 'a review' : `request ${uid}`}`, { ...(uid === undefined ? {} : { uid }), error });
  }
}

async function answerGuarded(value: JsonValue, set: PolicySet | undefined, guard: ReviewGuard, seen: Seen, options: ReviewOptions): Promise<ReviewAnswer> {
  const checked = validateReview(value);
  if (!checked.ok) {
    return failure(400, 'invalid', `invalid AdmissionReview: ${checked.error.message}`, { uid: checked.error.uid });
  }
  const { uid } = checked.request;
  seen.uid = uid;
  if (!set) return failure(503, 'unavailable', 'no policy set is loaded yet', { uid });
  const { onPolicyStart, outOfHeap } = options;
  const result = await evaluate(set, checked.request, onPolicyStart || outOfHeap ? { guard, onPolicyStart, outOfHeap } : { guard });
  // Nobody reads this answer: what the stopped policies "did" is no outcome of theirs to count or log.
  if (guard.aborted?.reason === 'cancelled') return abandonedAnswer('the review was cancelled', { uid });
  const extras = replyExtras(result, checked.apiVersion);
  const report = { outcomes: result.outcomes, subject: subjectOf(checked.request) };
  if (!result.allowed) return { status: 200, body: denyReply(uid, result.status, extras), outcome: 'denied', uid, patchOps: 0, ...report };
  const patch = result.patch;
  return { status: 200, body: allowReply(uid, patch, extras), outcome: patch.length > 0 ? 'patched' : 'allowed', uid, patchOps: patch.length, ...report };
}

function subjectOf(request: AdmissionRequest): ReviewSubject {
  return { kind: request.kind.kind, namespace: request.namespace ?? '', name: request.name ?? '', operation: request.operation };
}
