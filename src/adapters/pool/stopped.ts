/**
 * The answer to a review whose worker was stopped (deadline plus grace passed, heap exhausted, client gone):
 * the review is answered by the failure policy of the policy that was running and of those not yet run,
 * as the engine answers a review whose in-engine deadline passed. Only on this path does the main thread
 * parse the body, so the pool bounds the time it spends here (stopped-budget.ts): a burst of large reviews
 * past their deadline made it the common path.
 *
 * The answer itself is the engine's `answerStoppedReview(set, request, ordinal, reason)` unless
 * `PoolOptions.answerStopped` says otherwise (tests).
 */
import { allowReply, denyReply, replyExtras, validateReview, type AdmissionRequest } from '../../admission/index.js';
import type { EngineResult } from '../../engine/index.js';
import { JsonParseError, parseJson, type JsonValue } from '../../json/index.js';
import type { PolicySet } from '../../policyset/index.js';
import { failure, reviewBodyText, type ReviewAnswer, type ReviewBody } from '../../server/index.js';

export type StopReason = 'deadline' | 'size' | 'cancelled';

/** Same signature as the engine's `answerStoppedReview`. */
export type AnswerStopped = (set: PolicySet, request: AdmissionRequest, ordinal: number, reason: StopReason, outOfHeap: readonly number[]) => EngineResult;

/** Where a review stopped: the policy its worker was on, why, and the policies it had left out. */
export interface StopPoint {
  ordinal: number;
  reason: StopReason;
  outOfHeap: readonly number[];
}

/** The ReviewAnswer of a stopped review: decode, parse and validate the body here, then ask `answer`. */
export function stoppedReviewAnswer(
  body: ReviewBody,
  set: PolicySet,
  maxJsonDepth: number,
  { ordinal, reason, outOfHeap }: StopPoint,
  answer: AnswerStopped,
): ReviewAnswer {
  const decoded = reviewBodyText(body);
  if (!decoded.ok) return decoded.answer;
  let value: JsonValue;
  try {
    value = parseJson(decoded.text, { maxDepth: maxJsonDepth });
  } catch (err) {
    if (err instanceof JsonParseError) return failure(400, 'invalid', `malformed JSON: ${err.message}`);
    throw err;
  }
  const checked = validateReview(value);
  if (!checked.ok) return failure(400, 'invalid', `invalid AdmissionReview: ${checked.error.message}`, { uid: checked.error.uid });
  const { uid } = checked.request;
  // -1: the worker had not started a policy yet (it was parsing): every policy is then "not yet run".
  const result = answer(set, checked.request, Math.max(0, ordinal), reason, outOfHeap);
  const extras = replyExtras(result, checked.apiVersion);
  if (!result.allowed) return { status: 200, body: denyReply(uid, result.status, extras), outcome: 'denied', uid, patchOps: 0 };
  const patch = result.patch;
  return { status: 200, body: allowReply(uid, patch, extras), outcome: patch.length > 0 ? 'patched' : 'allowed', uid, patchOps: patch.length };
}
