/**
 * Answers for policies that did not run to the end because the review was stopped: its deadline passed,
 * it was cancelled, or (from outside) its worker was killed or ran out of heap. Each such policy that
 * matches the request cheaply (match constraints and bindings for MAP, match/exclude for Kyverno; never
 * CEL, matchConditions, preconditions or context) is answered by its failurePolicy: Fail → a denial
 * naming the policy and the reason, Ignore → skipped and reported.
 */
import type { AdmissionRequest } from '../admission/index.js';
import { ReviewAborted, ReviewGuard, type AbortReason } from '../guard/index.js';
import type { JsonValue } from '../json/index.js';
import { kyvernoPoliciesMatching, type CompiledKyvernoPolicy } from '../kyverno/index.js';
import { dispatch, NO_EQUIVALENTS } from '../map/index.js';
import type { PolicySet } from '../policyset/index.js';
import { namespaceLabels } from './kyverno-step.js';
import { denialStatus, forbiddenStatus } from './status.js';
import type { EngineResult, PolicyOutcome } from './types.js';

/** A guard that is already stopped for `stop`: the dispatcher answers every invocation without running it. */
class StoppedGuard extends ReviewGuard {
  constructor(private readonly stop: ReviewAborted) {
    super({ deadlineMs: 0, maxValueBytes: 0 });
  }

  override get aborted(): ReviewAborted {
    return this.stop;
  }

  override check(): void {
    throw this.stop;
  }

  override tick(): void {
    throw this.stop;
  }
}

/** Kyverno policies answered by their failurePolicy without running; `failures` holds the Fail ones' texts. */
export function answerKyvernoNotRun(
  policies: readonly CompiledKyvernoPolicy[],
  request: AdmissionRequest,
  object: JsonValue | null,
  labels: Record<string, string> | undefined,
  stop: ReviewAborted,
): { outcomes: PolicyOutcome[]; failures: string[] } {
  const outcomes: PolicyOutcome[] = [];
  const failures: string[] = [];
  for (const policy of kyvernoPoliciesMatching(policies, { request, namespaceLabels: labels }, object)) {
    const detail = `not evaluated: ${stop.message}`;
    const fail = policy.failurePolicy === 'Fail';
    if (fail) failures.push(`policy ${policy.id}: ${detail}`);
    outcomes.push({
      engine: 'Kyverno',
      policy: policy.id,
      pass: 1,
      result: fail ? 'error' : 'skipped',
      detail,
      ...(fail ? {} : { ignored: true }),
      failurePolicy: policy.failurePolicy,
      durationMs: 0,
      aborted: stop.reason,
    });
  }
  return { outcomes, failures };
}

function stopMessage(reason: AbortReason): string {
  const lost = 'the evaluation was stopped from outside and the mutations of the policies that had completed are lost';
  switch (reason) {
    case 'deadline':
      return `deadline exceeded: ${lost}`;
    case 'size':
      return `out of memory: ${lost}`;
    case 'cancelled':
      return `the review was cancelled: ${lost}`;
  }
}

/**
 * The answer for a review whose evaluation was stopped from outside (its worker thread was killed after
 * the deadline plus a grace period, or ran out of heap): policy `ordinal` of `pipelinePolicies(set)` and
 * those after it that match cheaply are answered by their failurePolicy. Nothing the evaluation did
 * survives: the reply carries no patch, and every outcome's detail says so.
 */
export function answerStoppedReview(set: PolicySet, request: AdmissionRequest, ordinal: number, reason: AbortReason): EngineResult {
  return answerStopped(set, request, ordinal, new ReviewAborted(reason, stopMessage(reason)));
}

/** `answerStoppedReview` with the stop's own text (a ReviewAborted that escaped an engine). */
export function answerStopped(set: PolicySet, request: AdmissionRequest, ordinal: number, stop: ReviewAborted): EngineResult {
  const first = Math.max(0, Math.trunc(Number.isFinite(ordinal) ? ordinal : 0));
  const mapCount = set.mutatingPolicies.length;
  const outcomes: PolicyOutcome[] = [];
  const none = {};
  const object = request.object ?? null;
  if (first < mapCount) {
    const r = dispatch(set.mutatingPolicies.slice(first), request, {
      params: set.objects,
      namespaces: (name) => set.objects.namespace(name),
      equivalence: NO_EQUIVALENTS,
      guard: new StoppedGuard(stop),
    });
    for (const t of r.traces) outcomes.push({ engine: t.policyKind !== undefined ? 'MutatingPolicy' : 'MutatingAdmissionPolicy', ...t, durationMs: 0 });
    if (r.abort) return { allowed: false, status: r.abort.status, outcomes, warnings: [], auditAnnotations: none };
    if (r.errors.length > 0) return { allowed: false, status: denialStatus(r.errors, request), outcomes, warnings: [], auditAnnotations: none };
  }
  const kyverno = set.kyvernoPolicies.slice(Math.max(0, first - mapCount));
  const labels = namespaceLabels(request, (name) => set.objects.namespace(name));
  const answered = answerKyvernoNotRun(kyverno, request, object, labels, stop);
  outcomes.push(...answered.outcomes);
  if (answered.failures.length > 0) {
    const message = answered.failures.join('; ');
    return { allowed: false, status: forbiddenStatus(request, 'Forbidden', message, answered.failures), outcomes, warnings: [], auditAnnotations: none };
  }
  return { allowed: true, object, patch: [], outcomes, warnings: [], auditAnnotations: none };
}
