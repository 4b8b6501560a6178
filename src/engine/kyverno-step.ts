/**
 * The Kyverno step of the pipeline: the set's ClusterPolicies / Policies run on the object the
 * MutatingAdmissionPolicies produced (DESIGN.md: MAP invocations first, then Kyverno rules).
 */
import type { AdmissionRequest, Status } from '../admission/types.js';
import { isJsonObject, type JsonValue } from '../json/index.js';
import { kyvernoAuditAnnotations, runKyvernoPolicies, type KyvernoResult } from '../kyverno/index.js';
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

function namespaceLabels(request: AdmissionRequest, lookup: (name: string) => JsonValue | undefined): Record<string, string> | undefined {
  const ns = request.namespace ?? '';
  if (!ns) return undefined;
  const obj = lookup(ns);
  return isJsonObject(obj) ? (objectLabels(obj) ?? {}) : undefined;
}

function outcomesOf(result: KyvernoResult): PolicyOutcome[] {
  return result.policies.map((p) => {
    const detail = p.rules.map((r) => `${r.rule}: ${r.status}${r.message ? ` (${r.message})` : ''}`).join('; ');
    const outcome: PolicyOutcome = {
      engine: 'Kyverno',
      policy: p.policy,
      pass: 1,
      result: p.status === 'applied' ? 'mutated' : p.status === 'skipped' ? 'unchanged' : 'error',
      ...(detail ? { detail } : {}),
    };
    if (p.status === 'error' && p.failurePolicy === 'Ignore') outcome.ignored = true;
    return outcome;
  });
}

export async function runKyvernoStep(
  set: PolicySet,
  request: AdmissionRequest,
  object: JsonValue | null,
  namespaceLookup: (name: string) => JsonValue | undefined,
): Promise<KyvernoStep> {
  if (set.kyvernoPolicies.length === 0 || object === null) return { object, outcomes: [], auditAnnotations: {} };
  const result = await runKyvernoPolicies(set.kyvernoPolicies, {
    request,
    object,
    namespaceLabels: namespaceLabels(request, namespaceLookup),
    sources: { configMap: (namespace, name) => set.objects.get('', 'ConfigMap', namespace, name) },
  });
  const outcomes = outcomesOf(result);
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
