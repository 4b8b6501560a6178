/**
 * Answers for policies that did not run to the end because the review was stopped: its deadline passed,
 * it was cancelled, or (from outside) its worker was killed or ran out of heap. Each such policy that
 * matches the request cheaply (match constraints and bindings for MAP, match/exclude for Kyverno; never
 * CEL, matchConditions, preconditions or context) is answered by its failurePolicy: Fail → a denial
 * naming the policy and the reason, Ignore → skipped and reported. Stopped from outside, the policies
 * that had completed are answered so too: what they changed is lost with the evaluation. Policies whose
 * evaluation of the review ran a worker out of heap, left out of its next evaluation (left-out.ts), are
 * answered so as well, as policies left out.
 */
import { boundWarnings, type AdmissionRequest, type Status } from '../admission/index.js';
import { ReviewAborted, ReviewGuard, type AbortReason } from '../guard/index.js';
import type { JsonValue } from '../json/index.js';
import { kyvernoPoliciesMatching, type CompiledKyvernoPolicy } from '../kyverno/index.js';
import { dispatch, NO_EQUIVALENTS, type PolicyError, type StatusAbort } from '../map/index.js';
import type { PolicySet } from '../policyset/index.js';
import { namespaceLabels } from './kyverno-step.js';
import { policiesWhere } from './pipeline.js';
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

/** How a policy answered without running is described. */
const NOT_EVALUATED = 'not evaluated';
/** How a policy that had completed is described when the evaluation's result is lost. */
const COMPLETED_LOST = 'completed, but whatever it changed is lost';

/**
 * Kyverno policies answered by their failurePolicy without running (or, with COMPLETED_LOST, whose result
 * is lost); `failures` holds the Fail ones' texts.
 */
export function answerKyvernoNotRun(
  policies: readonly CompiledKyvernoPolicy[],
  request: AdmissionRequest,
  object: JsonValue | null,
  labels: Record<string, string> | undefined,
  set: PolicySet,
  stop: ReviewAborted,
  prefix = NOT_EVALUATED,
): { outcomes: PolicyOutcome[]; failures: string[] } {
  const outcomes: PolicyOutcome[] = [];
  const failures: string[] = [];
  const subject = { request, namespaceLabels: labels, resourceKind: (group: string, resource: string) => set.objects.kindOfResource(group, resource) };
  for (const policy of kyvernoPoliciesMatching(policies, subject, object)) {
    const detail = `${prefix}: ${stop.message}`;
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
 * survives: the reply carries no patch. So the policies before `ordinal` that match cheaply, which had
 * completed, are answered by their failurePolicy too, as when the final patch is lost (evaluate.ts,
 * lostMutations): a Fail one denies, since its mutation may be among those lost (a hostile object that
 * makes a later policy run out of heap must not have the request admitted without it). When none denies,
 * the reply warns of each policy not applied. `outOfHeap`: policies the evaluation had left out (left-out.ts),
 * answered as such.
 */
export function answerStoppedReview(set: PolicySet, request: AdmissionRequest, ordinal: number, reason: AbortReason, outOfHeap: readonly number[] = []): EngineResult {
  return answerStopped(set, request, ordinal, new ReviewAborted(reason, stopMessage(reason)), outOfHeap);
}

/** `answerStoppedReview` with the stop's own text (a ReviewAborted that escaped an engine). */
export function answerStopped(set: PolicySet, request: AdmissionRequest, ordinal: number, stop: ReviewAborted, outOfHeap: readonly number[] = []): EngineResult {
  const first = Math.max(0, Math.trunc(Number.isFinite(ordinal) ? ordinal : 0));
  const object = request.object ?? null;
  const skipped = new Set(outOfHeap);
  const completed = answerRange(set, request, object, 0, first, stop, COMPLETED_LOST, skipped);
  const stopped = answerRange(set, request, object, first, Infinity, stop, NOT_EVALUATED, skipped);
  const left = answerOutOfHeap(set, request, outOfHeap);
  const outcomes = [...completed.outcomes, ...stopped.outcomes, ...left.outcomes];
  // The policy that was stopped speaks first: kube-apiserver would deny with its error, were it Fail.
  const status = denial([stopped, completed, ...left.parts], request);
  const none = {};
  if (status) return { allowed: false, status, outcomes, warnings: [], auditAnnotations: none };
  const warnings = boundWarnings([...notAppliedWarnings([...completed.outcomes, ...stopped.outcomes], stop), ...left.warnings]);
  return { allowed: true, object, patch: [], outcomes, warnings, auditAnnotations: none };
}

/** Why a policy was left out of an evaluation (left-out.ts): its first clause is the warning's reason. */
const OUT_OF_HEAP = new ReviewAborted('size', 'out of memory: evaluating it ran a review worker out of heap, and the review was evaluated again without it');

/** How a policy left out of a review's evaluation is described. */
const LEFT_OUT = 'left out';

/**
 * The policies of `ordinals` (of `pipelinePolicies(set)`) whose evaluation of this review ran a worker out
 * of heap, that match cheaply, answered by their failurePolicy without running: `status` when a Fail one
 * denies, else a warning for each.
 */
export function answerLeftOut(set: PolicySet, request: AdmissionRequest, ordinals: readonly number[]): { outcomes: PolicyOutcome[]; status?: Status; warnings: string[] } {
  const { outcomes, parts, warnings } = answerOutOfHeap(set, request, ordinals);
  const status = denial(parts, request);
  return status ? { outcomes, status, warnings: [] } : { outcomes, warnings };
}

function answerOutOfHeap(set: PolicySet, request: AdmissionRequest, ordinals: readonly number[]): { outcomes: PolicyOutcome[]; parts: AnsweredRange[]; warnings: string[] } {
  const object = request.object ?? null;
  const parts = ordinals.map((o) => answerRange(set, request, object, o, o + 1, OUT_OF_HEAP, LEFT_OUT));
  const outcomes = parts.flatMap((p) => p.outcomes);
  return { outcomes, parts, warnings: notAppliedWarnings(outcomes, OUT_OF_HEAP) };
}

/**
 * The denial of the first part (in the order given) with a Fail policy answered by failurePolicy, if any;
 * within a part the MAP engine's first, as evaluate answers (its failures come before Kyverno's).
 */
function denial(parts: readonly AnsweredRange[], request: AdmissionRequest): Status | undefined {
  for (const part of parts) {
    if (part.abort) return part.abort.status;
    if (part.mapErrors.length > 0) return denialStatus(part.mapErrors, request);
    if (part.kyvernoFailures.length > 0) return forbiddenStatus(request, 'Forbidden', part.kyvernoFailures.join('; '), part.kyvernoFailures);
  }
  return undefined;
}

/**
 * An admission warning (kubectl prints them) for each policy the admitted request goes without: the
 * stop's first clause (`out of memory`, `deadline exceeded`…); the outcomes, logged, have the whole text.
 */
function notAppliedWarnings(outcomes: readonly PolicyOutcome[], stop: ReviewAborted): string[] {
  const why = stop.message.split(': ', 1)[0];
  return boundWarnings(outcomes.filter((o) => o.aborted !== undefined).map((o) => `policy ${o.policy} was not applied: ${why}`));
}

const NONE: ReadonlySet<number> = new Set();

interface AnsweredRange {
  outcomes: PolicyOutcome[];
  mapErrors: readonly PolicyError[];
  kyvernoFailures: string[];
  abort?: StatusAbort;
}

/**
 * The policies of ordinals [from, to) of `pipelinePolicies(set)` that match cheaply, but those of `skipped`,
 * answered by failurePolicy.
 */
function answerRange(
  set: PolicySet,
  request: AdmissionRequest,
  object: JsonValue | null,
  from: number,
  to: number,
  stop: ReviewAborted,
  prefix: string,
  skipped: ReadonlySet<number> = NONE,
): AnsweredRange {
  const outcomes: PolicyOutcome[] = [];
  const { mutatingPolicies: mapPolicies, kyvernoPolicies: kyverno } = policiesWhere(set, (o) => o >= from && o < to && !skipped.has(o));
  let mapErrors: readonly PolicyError[] = [];
  if (mapPolicies.length > 0) {
    const r = dispatch(mapPolicies, request, {
      params: set.objects,
      namespaces: (name) => set.objects.namespace(name),
      equivalence: NO_EQUIVALENTS,
      guard: new StoppedGuard(stop),
      notRunPrefix: prefix,
    });
    for (const t of r.traces) outcomes.push({ engine: t.policyKind !== undefined ? 'MutatingPolicy' : 'MutatingAdmissionPolicy', ...t, durationMs: 0 });
    if (r.abort) return { outcomes, mapErrors, kyvernoFailures: [], abort: r.abort };
    mapErrors = r.errors;
  }
  const labels = namespaceLabels(request, (name) => set.objects.namespace(name));
  const answered = answerKyvernoNotRun(kyverno, request, object, labels, set, stop, prefix);
  outcomes.push(...answered.outcomes);
  return { outcomes, mapErrors, kyvernoFailures: answered.failures };
}
