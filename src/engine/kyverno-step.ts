/**
 * The Kyverno step of the pipeline: the set's ClusterPolicies / Policies run on the object the
 * MutatingAdmissionPolicies produced (DESIGN.md: MAP invocations first, then Kyverno rules).
 */
import type { AdmissionRequest, Status } from '../admission/index.js';
import type { ReviewGuard } from '../guard/index.js';
import { isJsonObject, type JsonValue } from '../json/index.js';
import { kyvernoAuditAnnotations, runKyvernoPolicies, type KyvernoInput, type KyvernoPolicyOutcome, type KyvernoResult } from '../kyverno/index.js';
import { objectLabels } from '../map/index.js';
import type { PolicySet } from '../policyset/index.js';
import { forbiddenStatus } from './status.js';
import type { PolicyOutcome } from './types.js';

export interface KyvernoStep {
  object: JsonValue | null;
  outcomes: PolicyOutcome[];
  auditAnnotations: Record<string, string>;
  /** Kyverno's admission warnings (policies with `spec.emitWarning: true`), before any bound. */
  warnings: readonly string[];
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
type ReportedOutcome = KyvernoPolicyOutcome;

function outcomesOf(result: KyvernoResult): PolicyOutcome[] {
  const policies = result.policies;
  const out: PolicyOutcome[] = new Array(policies.length);
  for (let i = 0; i < policies.length; i++) out[i] = outcomeOf(policies[i]);
  return out;
}

function outcomeOf(p: ReportedOutcome): PolicyOutcome {
  let detail = '';
  const rules: { rule: string; status: string; message: string; durationMs: number }[] = new Array(p.rules.length);
  for (let i = 0; i < p.rules.length; i++) {
    const r = p.rules[i];
    detail += `${i === 0 ? '' : '; '}${r.rule}: ${r.status}${r.message ? ` (${r.message})` : ''}`;
    rules[i] = { rule: r.rule, status: r.status, message: r.message, durationMs: r.durationMs };
  }
  const result = p.status === 'applied' ? 'mutated' : p.status === 'skipped' ? 'unchanged' : 'error';
  // Two literals rather than a conditional spread of `detail` (V8 copies a spread member by member);
  // the members in the same order either way.
  const outcome: PolicyOutcome = detail
    ? { engine: 'Kyverno', policy: p.policy, pass: 1, result, detail, failurePolicy: p.failurePolicy, durationMs: p.durationMs, rules }
    : { engine: 'Kyverno', policy: p.policy, pass: 1, result, failurePolicy: p.failurePolicy, durationMs: p.durationMs, rules };
  if (p.status === 'error' && p.failurePolicy === 'Ignore') outcome.ignored = true;
  if (p.aborted) outcome.aborted = p.aborted;
  return outcome;
}

export async function runKyvernoStep(
  set: PolicySet,
  request: AdmissionRequest,
  object: JsonValue | null,
  namespaceLookup: (name: string) => JsonValue | undefined,
  options: KyvernoStepOptions,
): Promise<KyvernoStep> {
  if (set.kyvernoPolicies.length === 0 || object === null) return { object, outcomes: [], auditAnnotations: {}, warnings: [] };
  const input: { -readonly [K in keyof KyvernoInput]: KyvernoInput[K] } = {
    request,
    object,
    namespaceLabels: namespaceLabels(request, namespaceLookup),
    sources: { configMap: (namespace, name) => set.objects.get('', 'ConfigMap', namespace, name) },
    guard: options.guard,
    resourceKind: (group, resource) => set.objects.kindOfResource(group, resource),
  };
  if (options.onPolicyStart) input.onPolicyStart = options.onPolicyStart;
  const result = await runKyvernoPolicies(set.kyvernoPolicies, input);
  const outcomes = outcomesOf(result);
  const auditAnnotations = kyvernoAuditAnnotations(result);
  if (result.rejection) {
    return {
      object,
      outcomes,
      auditAnnotations,
      warnings: result.warnings,
      denial: forbiddenStatus(request, 'Forbidden', result.rejection.message, [result.rejection.message]),
    };
  }
  return { object: result.object, outcomes, auditAnnotations, warnings: result.warnings };
}
