/**
 * The Kyverno step of the pipeline: the set's ClusterPolicies / Policies run on the object the
 * MutatingAdmissionPolicies produced (DESIGN.md: MAP invocations first, then Kyverno rules).
 */
import type { AdmissionRequest, Status } from '../admission/types.js';
import type { AbortReason, ReviewGuard } from '../guard/index.js';
import { isJsonObject, type JsonValue } from '../json/index.js';
import { kyvernoAuditAnnotations, runKyvernoPolicies, type KyvernoInput, type KyvernoPolicyOutcome, type KyvernoResult } from '../kyverno/index.js';
import { objectLabels } from '../map/match-resources.js';
import type { PolicySet } from '../policyset/index.js';
import { forbiddenStatus } from './status.js';
import type { PolicyOutcome } from './types.js';

export interface KyvernoStep {
  object: JsonValue | null;
  outcomes: PolicyOutcome[];
  auditAnnotations: Record<string, string>;
  /** Set when a failurePolicy=Fail policy failed: the request is denied with it. */
  denial?: Status;
}

export interface KyvernoStepOptions {
  guard: ReviewGuard;
  /** Called with the policy's index in `set.kyvernoPolicies` when it starts. */
  onPolicyStart?: (index: number) => void;
}

export function namespaceLabels(request: AdmissionRequest, lookup: (name: string) => JsonValue | undefined): Record<string, string> | undefined {
  const ns = request.namespace ?? '';
  if (!ns) return undefined;
  const obj = lookup(ns);
  return isJsonObject(obj) ? (objectLabels(obj) ?? {}) : undefined;
}

/** What the Kyverno runner may report beyond its declared outcome (a guard-aware runner names the stop). */
type ReportedOutcome = KyvernoPolicyOutcome & { aborted?: AbortReason };

function outcomesOf(result: KyvernoResult, durations: Map<string, number>): PolicyOutcome[] {
  return result.policies.map((p: ReportedOutcome) => {
    const detail = p.rules.map((r) => `${r.rule}: ${r.status}${r.message ? ` (${r.message})` : ''}`).join('; ');
    const outcome: PolicyOutcome = {
      engine: 'Kyverno',
      policy: p.policy,
      pass: 1,
      result: p.status === 'applied' ? 'mutated' : p.status === 'skipped' ? 'unchanged' : 'error',
      ...(detail ? { detail } : {}),
      failurePolicy: p.failurePolicy,
      durationMs: durations.get(p.policy) ?? 0,
    };
    if (p.status === 'error' && p.failurePolicy === 'Ignore') outcome.ignored = true;
    if (p.aborted) outcome.aborted = p.aborted;
    return outcome;
  });
}

/**
 * Per-policy wall times from the starts the runner reports: a policy lasts until the next one starts or
 * the step ends. A runner that reports no starts leaves the step's whole time to each of its outcomes
 * (an upper bound, the best that can be said then).
 */
class PolicyClock {
  private readonly starts: { index: number; at: number }[] = [];

  constructor(private readonly stepStart: number) {}

  started(index: number): void {
    this.starts.push({ index, at: performance.now() });
  }

  durations(policies: PolicySet['kyvernoPolicies'], outcomes: readonly KyvernoPolicyOutcome[]): Map<string, number> {
    const end = performance.now();
    const out = new Map<string, number>();
    if (this.starts.length === 0) {
      for (const o of outcomes) out.set(o.policy, end - this.stepStart);
      return out;
    }
    for (let i = 0; i < this.starts.length; i++) {
      const { index, at } = this.starts[i];
      const until = i + 1 < this.starts.length ? this.starts[i + 1].at : end;
      const id = policies[index]?.id;
      if (id !== undefined) out.set(id, (out.get(id) ?? 0) + (until - at));
    }
    return out;
  }
}

export async function runKyvernoStep(
  set: PolicySet,
  request: AdmissionRequest,
  object: JsonValue | null,
  namespaceLookup: (name: string) => JsonValue | undefined,
  options: KyvernoStepOptions,
): Promise<KyvernoStep> {
  if (set.kyvernoPolicies.length === 0 || object === null) return { object, outcomes: [], auditAnnotations: {} };
  const clock = new PolicyClock(performance.now());
  const onPolicyStart = (index: number) => {
    clock.started(index);
    options.onPolicyStart?.(index);
  };
  // `guard` and `onPolicyStart` are read by a guard-aware Kyverno runner (src/kyverno/run.ts).
  const input: KyvernoInput & { guard?: ReviewGuard; onPolicyStart?: (index: number) => void } = {
    request,
    object,
    namespaceLabels: namespaceLabels(request, namespaceLookup),
    sources: { configMap: (namespace, name) => set.objects.get('', 'ConfigMap', namespace, name) },
    guard: options.guard,
    onPolicyStart,
  };
  const result = await runKyvernoPolicies(set.kyvernoPolicies, input);
  const outcomes = outcomesOf(result, clock.durations(set.kyvernoPolicies, result.policies));
  const auditAnnotations = kyvernoAuditAnnotations(result);
  if (result.rejection) {
    return {
      object,
      outcomes,
      auditAnnotations,
      denial: forbiddenStatus(request, 'Forbidden', result.rejection.message, [result.rejection.message]),
    };
  }
  return { object: result.object, outcomes, auditAnnotations };
}
