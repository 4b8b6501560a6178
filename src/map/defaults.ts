/**
 * API defaults of admissionregistration.k8s.io (`pkg/apis/admissionregistration/v1/defaults.go`),
 * applied before validation exactly as the API server applies them on create. Returns new objects.
 */
import type { MatchResources, MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, NamedRuleWithOperations } from './types.js';

/**
 * Every defaulted rule is made by this one literal, members in the decoder's order: the matcher reads
 * the rules of every policy at the same places, and V8 reads a member quickly only from objects of a
 * few shapes (a spread copy, or a scope added afterwards, each makes another).
 */
function defaultRule(rule: NamedRuleWithOperations): NamedRuleWithOperations {
  return {
    resourceNames: rule.resourceNames,
    operations: rule.operations,
    apiGroups: rule.apiGroups,
    apiVersions: rule.apiVersions,
    resources: rule.resources,
    scope: rule.scope ?? '*',
  };
}

export function defaultMatchResources(mr: MatchResources): MatchResources {
  return {
    namespaceSelector: mr.namespaceSelector ?? {},
    objectSelector: mr.objectSelector ?? {},
    resourceRules: mr.resourceRules.map(defaultRule),
    excludeResourceRules: mr.excludeResourceRules.map(defaultRule),
    matchPolicy: mr.matchPolicy ?? 'Equivalent',
  };
}

export function defaultPolicy(policy: MutatingAdmissionPolicy): MutatingAdmissionPolicy {
  const out: MutatingAdmissionPolicy = { ...policy, failurePolicy: policy.failurePolicy ?? 'Fail' };
  if (policy.matchConstraints) out.matchConstraints = defaultMatchResources(policy.matchConstraints);
  return out;
}

/** `apiVersion` matters for one default: v1alpha1 defaulted `parameterNotFoundAction` to Deny. */
export function defaultBinding(binding: MutatingAdmissionPolicyBinding, apiVersion: string): MutatingAdmissionPolicyBinding {
  const out: MutatingAdmissionPolicyBinding = { ...binding };
  if (binding.matchResources) out.matchResources = defaultMatchResources(binding.matchResources);
  if (binding.paramRef && binding.paramRef.parameterNotFoundAction === undefined && apiVersion.endsWith('/v1alpha1')) {
    out.paramRef = { ...binding.paramRef, parameterNotFoundAction: 'Deny' };
  }
  return out;
}
