/**
 * The policy and rule names a policy set serves, as the engine reports them in its outcomes: what the
 * per-policy metrics (policy-metrics.ts) keep series for. Built once per set (a WeakMap: a set replaced is
 * collected with its index), looked up only when a series is made or pruned, never per review.
 */
import type { PolicySet } from '../policyset/index.js';

export interface ServedPolicies {
  /** True when `set` serves a policy of that name for that engine label (an unknown engine is kept). */
  has(engine: string, policy: string): boolean;
  /** True when the Kyverno policy `policy` has a rule of that name ('' is the runner's whole-policy error). */
  hasRule(policy: string, rule: string): boolean;
}

const cache = new WeakMap<PolicySet, ServedPolicies>();

export function servedPolicies(set: PolicySet): ServedPolicies {
  let served = cache.get(set);
  if (served) return served;
  // MutatingAdmissionPolicies and Kyverno MutatingPolicies share one list and one name: the outcome's
  // engine label (MutatingAdmissionPolicy or MutatingPolicy) depends on the invocation, so it is not
  // told apart here. Kyverno policies are named by their id (ClusterPolicy/<name>, Policy/<ns>/<name>).
  const admission = new Set(set.mutatingPolicies.map((b) => b.policy.name));
  const kyverno = new Map(set.kyvernoPolicies.map((k) => [k.id, new Set(['', ...k.rules.map((r) => r.name)])]));
  served = {
    has(engine, policy) {
      if (engine === 'Kyverno') return kyverno.has(policy);
      if (engine === 'MutatingAdmissionPolicy' || engine === 'MutatingPolicy') return admission.has(policy);
      return true;
    },
    hasRule: (policy, rule) => kyverno.get(policy)?.has(rule) ?? true,
  };
  cache.set(set, served);
  return served;
}
