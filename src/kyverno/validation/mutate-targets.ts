/**
 * Kyverno's API validation of a policy spec (api/kyverno/v1 Spec.validateMutateTargets): a mutate rule
 * that asks to mutate existing resources on policy updates, by its own `mutateExistingOnPolicyUpdate` or
 * by the policy's, must name the `targets` to mutate; Kyverno refuses the policy otherwise.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { isSet } from './is-set.js';

export interface MutateTargetsProblem {
  readonly path: string;
  readonly message: string;
}

/** One problem per mutate rule without targets that Kyverno refuses (Kyverno lists them all). */
export function mutateTargetsProblems(spec: JsonObject, rules: readonly JsonValue[]): MutateTargetsProblem[] {
  const policyWide = getOwn(spec, 'mutateExistingOnPolicyUpdate') === true;
  const problems: MutateTargetsProblem[] = [];
  rules.forEach((rule, i) => {
    const mutate = isJsonObject(rule) ? getOwn(rule, 'mutate') : undefined;
    if (!isJsonObject(mutate) || !isSet(mutate)) return;
    // The spec-level flag applies even when the rule sets its own to false, as in Kyverno.
    if (!policyWide && getOwn(mutate, 'mutateExistingOnPolicyUpdate') !== true) return;
    const targets = getOwn(mutate, 'targets');
    if (Array.isArray(targets) && targets.length > 0) return;
    problems.push({
      path: 'spec.mutateExistingOnPolicyUpdate',
      message: `Forbidden: rules[${i}].mutate.targets has to be specified when mutateExistingOnPolicyUpdate is set`,
    });
  });
  return problems;
}
