/**
 * The answer to a review whose worker was stopped (deadline plus grace passed, heap exhausted, client gone):
 * the review is answered by the failure policy of the policy that was running and of those not yet run,
 * as the engine answers a review whose in-engine deadline passed. Only on this rare path does the main
 * thread parse the body.
 *
 * `answerStoppedByFailurePolicy` is the pool's own default. The engine's `answerStoppedReview(set,
 * request, ordinal, reason)` (src/engine) gives the same kind of answer and replaces it through
 * `PoolOptions.answerStopped` where available.
 */
import { allowReply, denyReply, validateReview, type AdmissionRequest } from '../../admission/index.js';
import type { EngineResult } from '../../engine/index.js';
import { JsonParseError, parseJson, type JsonValue } from '../../json/index.js';
import type { PolicySet } from '../../policyset/index.js';
import { failure, type ReviewAnswer } from '../../server/index.js';

export type StopReason = 'deadline' | 'size' | 'cancelled';

/** Same signature as the engine's `answerStoppedReview`. */
export type AnswerStopped = (set: PolicySet, request: AdmissionRequest, ordinal: number, reason: StopReason) => EngineResult;

const WHY: Record<StopReason, string> = {
  deadline: 'deadline exceeded',
  size: 'the review exhausted the memory allowed to it',
  cancelled: 'the review was cancelled (the client went away)',
};

/**
 * The pool's default: the policies from `ordinal` on (from the first when the worker had not started one)
 * are answered by their failurePolicy without being run: the first with Fail denies the request naming
 * itself and the reason; with none, the request is admitted unchanged with a warning naming those skipped.
 * It errs on the side of denying: whether those policies match the request is not evaluated (that could
 * be the work that was stopped), and the changes of policies before `ordinal` are lost with the worker,
 * so the request is admitted unchanged rather than half-mutated.
 */
export const answerStoppedByFailurePolicy: AnswerStopped = (set, request, ordinal, reason) => {
  const policies = [
    ...set.mutatingPolicies.map((p) => ({ name: `MutatingAdmissionPolicy/${p.policy.name}`, failurePolicy: p.policy.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail' })),
    ...set.kyvernoPolicies.map((p) => ({ name: p.id, failurePolicy: p.failurePolicy })),
  ].slice(ordinal);
  const failing = policies.find((p) => p.failurePolicy === 'Fail');
  if (failing) {
    return {
      allowed: false,
      status: { code: 403, reason: 'Forbidden', message: `policy ${failing.name}: ${WHY[reason]} (failurePolicy Fail)` },
      outcomes: [],
      warnings: [],
      auditAnnotations: {},
    };
  }
  const warnings = policies.length > 0 ? [`${WHY[reason]}: not applied (failurePolicy Ignore): ${policies.map((p) => p.name).join(', ')}`] : [];
  return { allowed: true, object: request.object ?? null, patch: [], outcomes: [], warnings, auditAnnotations: {} };
};

/** The ReviewAnswer of a stopped review: parse and validate the body here, then ask `answer`. */
export function stoppedReviewAnswer(
  text: string,
  set: PolicySet,
  maxJsonDepth: number,
  ordinal: number,
  reason: StopReason,
  answer: AnswerStopped,
): ReviewAnswer {
  let value: JsonValue;
  try {
    value = parseJson(text, { maxDepth: maxJsonDepth });
  } catch (err) {
    if (err instanceof JsonParseError) return failure(400, 'invalid', `malformed JSON: ${err.message}`);
    throw err;
  }
  const checked = validateReview(value);
  if (!checked.ok) return failure(400, 'invalid', `invalid AdmissionReview: ${checked.error.message}`, { uid: checked.error.uid });
  const { uid } = checked.request;
  // -1: the worker had not started a policy yet (it was parsing): every policy is then "not yet run".
  const result = answer(set, checked.request, Math.max(0, ordinal), reason);
  const extras = { warnings: result.warnings, auditAnnotations: result.auditAnnotations };
  if (!result.allowed) return { status: 200, body: denyReply(uid, result.status, extras), outcome: 'denied', uid, patchOps: 0 };
  const patch = result.patch;
  return { status: 200, body: allowReply(uid, patch, extras), outcome: patch.length > 0 ? 'patched' : 'allowed', uid, patchOps: patch.length };
}
