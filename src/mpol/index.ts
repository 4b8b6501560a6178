/**
 * Kyverno MutatingPolicy / NamespacedMutatingPolicy (`policies.kyverno.io` v1alpha1, v1beta1, v1) on
 * the MutatingAdmissionPolicy engine.
 *
 *   isMutatingPolicyDocument(doc): boolean, mutatingPolicyKind(doc)
 *   loadMutatingPolicy(doc): LoadedMutatingPolicy — the policy and its pod-controller autogen variants
 *     as MutatingAdmissionPolicies, with `errors` (refused: invalid, or calls of cluster/network CEL
 *     libraries) and `warnings` (mutateExisting/targets, audit annotations: reported, the policy runs).
 *   autogenVariants(policy, controllers?), convertPodExpression(expr, group), canAutogen(match)
 *
 * The policy set compiles them with `compilePolicy(policy, schema, { dialect: 'kyverno' })` and runs them
 * after the MutatingAdmissionPolicies (see src/policyset).
 */
export { isMutatingPolicyDocument, mutatingPolicyApiVersions, mutatingPolicyKind, MUTATING_POLICY_API_VERSIONS, type MutatingPolicyKind } from './kinds.js';
export { loadMutatingPolicy, type LoadedMutatingPolicy } from './load.js';
export { autogenVariants, canAutogen, convertPodExpression, AUTOGEN_CONTROLLERS, type AutogenGroup, type AutogenVariant } from './autogen.js';
