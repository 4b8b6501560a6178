/**
 * MutatingAdmissionPolicy (admissionregistration.k8s.io v1, v1beta1, v1alpha1) as the API server runs it,
 * specified in shared/spec/map.md. Two steps:
 *
 * 1. Load and compile each document once, when a policy set is built:
 *
 *      loadPolicy(doc) / loadBinding(doc, apiVersion): Loaded<T>    decode, API defaults, validation;
 *        `usable` false when the API server would refuse it; `errors` are FieldErrors {path, message}
 *      compilePolicy(policy, { schemas }): CompiledPolicy             the CEL programs of a policy
 *      builtinScope(group, kind), isBuiltinGroup(group)            scope of the kinds a paramKind may name
 *      ParamSource                                                 where params are looked up (the set's objects)
 *      resolveParamKind, resolveParams                             which params a binding selects (what dispatch
 *        invokes with; `amender test` reshapes them as Kyverno's CLI passes them)
 *
 * 2. Dispatch one admission request through the bound policies of a set:
 *
 *      dispatch(policies: BoundPolicy[], request, ctx: DispatchContext): DispatchResult
 *        → per invocation an InvocationTrace; a PolicyError per failure; internalError(message) aborts
 *      NO_EQUIVALENTS                                              `matchPolicy: Equivalent` without a RESTMapper view
 *      objectLabels(object)                                        an object's labels as selectors see them
 */
export { loadBinding, loadPolicy, POLICY_API_VERSIONS, type Loaded } from './load.js';
export { compilePolicy, type AuditAnnotation, type CompiledPolicy } from './compile.js';
export { FieldPath, forbidden, invalid, notSupported, typeError, unknownField, type FieldError } from './field-errors.js';
export type { MatchResources, MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, NamedRuleWithOperations } from './types.js';
// What another loader of MutatingAdmissionPolicy-shaped documents (src/mpol) reuses.
export { decodePolicy } from './decode.js';
export { depthErrors, POLICY_STRUCTURE } from './load.js';
export { defaultPolicy } from './defaults.js';
export { validatePolicy, type PolicyValidationOptions } from './validate.js';
export { builtinScope, isBuiltinGroup, type Scope } from './builtin-kinds.js';
export { resolveParamKind, resolveParams, type InvocationParam, type ParamObject, type ParamSource, type ResolvedParamKind } from './params.js';
export { dispatch, type BoundPolicy, type PolicyProgram, type DispatchContext, type DispatchResult, type InvocationTrace } from './dispatch.js';
export { NO_EQUIVALENTS } from './equivalence.js';
export { internalError, type PolicyError, type StatusAbort } from './errors.js';
export { objectLabels } from './match-resources.js';
// The API server's request variable and matchCondition verdicts, for the other webhook-shaped conditions
// (a Kyverno policy's spec.webhookConfiguration.matchConditions).
export { celRequest } from './dispatch.js';
export { evaluateConditions, type CompiledCondition, type ConditionsVerdict } from './match-conditions.js';
