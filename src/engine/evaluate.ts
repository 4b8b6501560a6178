/**
 * The pipeline for one admission request: the MutatingAdmissionPolicy invocations of the set in order
 * (src/map), then the Kyverno policies, each step working on the object the previous one produced;
 * the reply patch is the diff from the received object to the final one. One review guard (src/guard)
 * bounds the whole pipeline: its deadline, cancellation and value-size bound.
 */
import { boundWarnings, type AdmissionRequest } from '../admission/index.js';
import { defaultReviewGuard, ReviewAborted, type ReviewGuard } from '../guard/index.js';
import type { JsonObject, JsonValue } from '../json/index.js';
import { checkJsonSize, createPatch, type Operation } from '../jsonpatch/index.js';
import { dispatch, type InvocationTrace, NO_EQUIVALENTS } from '../map/index.js';
import type { PolicySet } from '../policyset/index.js';
import { namespaceLabels, runKyvernoStep } from './kyverno-step.js';
import { denialStatus, forbiddenStatus } from './status.js';
import { leaveOut } from './left-out.js';
import { answerKyvernoNotRun, answerStopped } from './stopped.js';
import type { EngineOptions, EngineResult, PolicyOutcome } from './types.js';

function namespaceLookup(set: PolicySet, options: EngineOptions): (name: string) => JsonObject | undefined {
  const fallback = options.namespaceLookup;
  return fallback ? (name) => set.objects.namespace(name) ?? fallback(name) : (name) => set.objects.namespace(name);
}

/** A MAP trace as an outcome, member by member (a spread of traces of several shapes is slow in V8). */
function mapOutcome(t: InvocationTrace): PolicyOutcome {
  const o = { engine: t.policyKind !== undefined ? 'MutatingPolicy' : 'MutatingAdmissionPolicy', policy: t.policy } as PolicyOutcome;
  if (t.policyKind !== undefined) o.policyKind = t.policyKind;
  if (t.binding !== undefined) o.binding = t.binding;
  if (t.param !== undefined) o.param = t.param;
  o.pass = t.pass;
  o.result = t.result;
  if (t.detail !== undefined) o.detail = t.detail;
  if (t.ignored) o.ignored = true;
  if (t.failurePolicy !== undefined) o.failurePolicy = t.failurePolicy;
  o.durationMs = t.durationMs ?? 0;
  if (t.aborted !== undefined) o.aborted = t.aborted;
  return o;
}

/** The ordinal (see pipelinePolicies) of the policy started last, for answering an escaped ReviewAborted. */
class Progress {
  ordinal = 0;
}

async function evaluateUnsafe(set: PolicySet, request: AdmissionRequest, options: EngineOptions, guard: ReviewGuard, progress: Progress): Promise<EngineResult> {
  const received: JsonValue | null = request.object ?? null;
  const outcomes: PolicyOutcome[] = [];
  const warnings: string[] = [];
  const namespaces = namespaceLookup(set, options);
  const notify = options.onPolicyStart;
  const started = (ordinal: number): void => {
    progress.ordinal = ordinal;
    notify?.(ordinal);
  };
  const mapResult = dispatch(set.mutatingPolicies, request, {
    params: set.objects,
    namespaces,
    ...(options.namespaceStandIn ? { namespaceStandIn: true } : {}),
    equivalence: NO_EQUIVALENTS,
    reinvocation: options.reinvocation ?? true,
    guard,
    onPolicyStart: started,
  });
  for (const t of mapResult.traces) outcomes.push(mapOutcome(t));
  // Once every policy has run, what is left (the reply patch) is no policy's: the policy count says so.
  const finishAll = (final: JsonValue | null, auditAnnotations: Record<string, string>): EngineResult => {
    started(set.mutatingPolicies.length + set.kyvernoPolicies.length);
    return finish(received, final, outcomes, warnings, auditAnnotations, guard, request);
  };
  const none = {};
  if (mapResult.abort) return { allowed: false, status: mapResult.abort.status, outcomes, warnings, auditAnnotations: none };
  if (mapResult.errors.length > 0) return { allowed: false, status: denialStatus(mapResult.errors, request), outcomes, warnings, auditAnnotations: none };

  const mapCount = set.mutatingPolicies.length;
  const stop = set.kyvernoPolicies.length > 0 ? guard.aborted : undefined;
  if (stop) {
    // The deadline passed (or the review was cancelled) before Kyverno's turn: its policies do not run.
    const labels = namespaceLabels(request, namespaces);
    const answered = answerKyvernoNotRun(set.kyvernoPolicies, request, mapResult.object, labels, set, stop);
    outcomes.push(...answered.outcomes);
    if (answered.failures.length > 0) {
      const message = answered.failures.join('; ');
      return { allowed: false, status: forbiddenStatus(request, 'Forbidden', message, answered.failures), outcomes, warnings, auditAnnotations: none };
    }
    return finishAll(mapResult.object, none);
  }
  // Without Kyverno policies the review ends here, without waiting on the (empty) Kyverno step.
  if (set.kyvernoPolicies.length === 0) return finishAll(mapResult.object, none);
  // A Kyverno runner that reports policy starts refines this; until then the step counts as its first.
  started(mapCount);
  const kyverno = await runKyvernoStep(set, request, mapResult.object, namespaces, {
    guard,
    onPolicyStart: (index) => started(mapCount + index),
  });
  outcomes.push(...kyverno.outcomes);
  // Shaped as the API server keeps them (length, control characters, duplicates): src/admission/warnings.ts.
  warnings.push(...boundWarnings(kyverno.warnings));
  const { auditAnnotations } = kyverno;
  if (kyverno.denial) return { allowed: false, status: kyverno.denial, outcomes, warnings, auditAnnotations };
  return finishAll(kyverno.object, auditAnnotations);
}

/**
 * The reply patch, under the guard: when the deadline passes while diffing, or the patch would pass the
 * size bound, the mutations are lost; each policy that made one is answered by its failurePolicy.
 */
function finish(
  received: JsonValue | null,
  final: JsonValue | null,
  outcomes: PolicyOutcome[],
  warnings: string[],
  auditAnnotations: Record<string, string>,
  guard: ReviewGuard,
  request: AdmissionRequest,
): EngineResult {
  let patch: Operation[] = [];
  try {
    // The diff of equal documents is empty: no equality walk first.
    if (!(received === null || final === null || received === final)) {
      patch = createPatch(received, final, guard);
      checkJsonSize(patch, guard, 'the reply patch');
    }
  } catch (err) {
    if (!(err instanceof ReviewAborted)) throw err;
    return lostMutations(err, outcomes, warnings, auditAnnotations, request);
  }
  return { allowed: true, object: final, patch, outcomes, warnings, auditAnnotations };
}

function lostMutations(
  stop: ReviewAborted,
  outcomes: PolicyOutcome[],
  warnings: string[],
  auditAnnotations: Record<string, string>,
  request: AdmissionRequest,
): EngineResult {
  const failures: string[] = [];
  for (const o of outcomes) {
    if (o.result !== 'mutated') continue;
    const text = `policy ${o.policy}: its mutation is lost: ${stop.message}`;
    o.detail = o.detail ? `${o.detail}; ${text}` : text;
    o.aborted = stop.reason;
    if (o.failurePolicy === 'Fail') failures.push(text);
  }
  if (failures.length > 0) return { allowed: false, status: forbiddenStatus(request, 'Forbidden', failures[0], failures), outcomes, warnings, auditAnnotations };
  return { allowed: true, object: request.object ?? null, patch: [], outcomes, warnings, auditAnnotations };
}

/**
 * Evaluates one request. Bad input, a policy's own error (a CEL or Kyverno failure inside the policy) and
 * the review guard (deadline, size, cancellation) are answered: a ReviewAborted that escaped an engine is
 * answered as a review stopped at the policy in progress (answerStoppedReview). Anything else thrown here
 * is a bug of the engine, not an answer: it rejects, so the caller's error boundary (src/server/review.ts)
 * answers HTTP 500 and the webhook's own failurePolicy in the cluster decides.
 */
export async function evaluate(set: PolicySet, request: AdmissionRequest, options: EngineOptions = {}): Promise<EngineResult> {
  const guard = options.guard ?? defaultReviewGuard();
  const progress = new Progress();
  const left = options.outOfHeap?.length ? leaveOut(set, options.outOfHeap) : undefined;
  try {
    if (!left) return await evaluateUnsafe(set, request, options, guard, progress);
    const notify = options.onPolicyStart;
    const viewOptions = notify ? { ...options, onPolicyStart: (ordinal: number) => notify(left.ordinalOf(ordinal)) } : options;
    return left.answer(await evaluateUnsafe(left.set, request, viewOptions, guard, progress), request);
  } catch (err) {
    if (!(err instanceof ReviewAborted)) throw err;
    const text = `${err.message} (the evaluation stopped; the mutations of the policies that had completed are lost)`;
    const ordinal = left ? left.ordinalOf(progress.ordinal) : progress.ordinal;
    return answerStopped(set, request, ordinal, new ReviewAborted(err.reason, text), left ? left.ordinals : []);
  }
}
