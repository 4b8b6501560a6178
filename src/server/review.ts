/**
 * One AdmissionReview in, one answer out: parse, validate, evaluate the policy set, build the reply.
 * Shared by the HTTP route and `amender review`, so both give the same reply for the same review. No
 * Hono and no platform module here.
 */
import { allowReply, denyReply, validateReview, type ReviewReply } from '../admission/index.js';
import { evaluate } from '../engine/index.js';
import { JsonParseError, parseJson, type JsonValue } from '../json/index.js';
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
  | 'error'; // the engine failed unexpectedly (500)

export type ReviewAnswer =
  | { status: 200; body: ReviewReply; outcome: 'allowed' | 'patched' | 'denied'; uid: string; patchOps: number }
  | { status: HttpErrorCode; body: StatusBody; outcome: Exclude<ReviewOutcome, 'allowed' | 'patched' | 'denied'>; uid?: string; error?: unknown };

export function failure(
  status: HttpErrorCode,
  outcome: Exclude<ReviewOutcome, 'allowed' | 'patched' | 'denied'>,
  message: string,
  extra: { uid?: string; error?: unknown } = {},
): ReviewAnswer {
  return { status, body: statusBody(status, message), outcome, ...extra };
}

/** Answers a review given as JSON text (the HTTP body). */
export async function answerReviewText(text: string, set: PolicySet | undefined, maxJsonDepth: number): Promise<ReviewAnswer> {
  let value: JsonValue;
  try {
    value = parseJson(text, { maxDepth: maxJsonDepth });
  } catch (err) {
    if (err instanceof JsonParseError) return failure(400, 'invalid', `malformed JSON: ${err.message}`);
    throw err;
  }
  return answerReview(value, set);
}

/** Answers a parsed review (the CLI reads YAML too). */
export async function answerReview(value: JsonValue, set: PolicySet | undefined): Promise<ReviewAnswer> {
  const checked = validateReview(value);
  if (!checked.ok) {
    return failure(400, 'invalid', `invalid AdmissionReview: ${checked.error.message}`, { uid: checked.error.uid });
  }
  const { uid } = checked.request;
  if (!set) return failure(503, 'unavailable', 'no policy set is loaded yet', { uid });
  let result: Awaited<ReturnType<typeof evaluate>>;
  try {
    result = await evaluate(set, checked.request);
  } catch (error) {
    // A bug, not bad input: answer 500 so the cluster's failurePolicy for the webhook decides.
    return failure(500, 'error', `internal error while evaluating request ${uid}`, { uid, error });
  }
  const extras = { warnings: result.warnings, auditAnnotations: result.auditAnnotations };
  if (!result.allowed) return { status: 200, body: denyReply(uid, result.status, extras), outcome: 'denied', uid, patchOps: 0 };
  const patch = result.patch;
  return { status: 200, body: allowReply(uid, patch, extras), outcome: patch.length > 0 ? 'patched' : 'allowed', uid, patchOps: patch.length };
}
