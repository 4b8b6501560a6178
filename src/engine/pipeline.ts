/**
 * The policies of a set in the order the pipeline starts them, so that an index (an "ordinal") names one
 * policy across the MAP and Kyverno steps: MutatingAdmissionPolicies in `set.mutatingPolicies` order
 * (by name; Kyverno MutatingPolicies follow them in that list and run in the same step, so they are
 * `MutatingAdmissionPolicy` entries here, their BoundPolicy marked `kyverno`), then Kyverno policies in
 * `set.kyvernoPolicies` order (ClusterPolicies by name, then Policies by namespace/name: the order the
 * Kyverno runner uses).
 */
import type { CompiledKyvernoPolicy } from '../kyverno/index.js';
import type { BoundPolicy } from '../map/index.js';
import type { PolicySet } from '../policyset/index.js';

export type PipelinePolicy =
  | { engine: 'MutatingAdmissionPolicy'; name: string; failurePolicy: 'Fail' | 'Ignore'; policy: BoundPolicy }
  | { engine: 'Kyverno'; name: string; failurePolicy: 'Fail' | 'Ignore'; policy: CompiledKyvernoPolicy };

const cache = new WeakMap<PolicySet, readonly PipelinePolicy[]>();

export function pipelinePolicies(set: PolicySet): readonly PipelinePolicy[] {
  let list = cache.get(set);
  if (list) return list;
  const out: PipelinePolicy[] = [];
  for (const bound of set.mutatingPolicies) {
    const failurePolicy = bound.policy.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
    out.push({ engine: 'MutatingAdmissionPolicy', name: bound.policy.name, failurePolicy, policy: bound });
  }
  for (const policy of set.kyvernoPolicies) out.push({ engine: 'Kyverno', name: policy.id, failurePolicy: policy.failurePolicy, policy });
  list = Object.freeze(out);
  cache.set(set, list);
  return list;
}

/** The MAP and Kyverno policies of `set` whose ordinals (as above) `keep` accepts, each list in its order. */
export function policiesWhere(
  set: PolicySet,
  keep: (ordinal: number) => boolean,
): { mutatingPolicies: BoundPolicy[]; kyvernoPolicies: CompiledKyvernoPolicy[] } {
  const mapCount = set.mutatingPolicies.length;
  return {
    mutatingPolicies: set.mutatingPolicies.filter((_, i) => keep(i)),
    kyvernoPolicies: set.kyvernoPolicies.filter((_, i) => keep(mapCount + i)),
  };
}
