/**
 * Policy sets: documents in, an immutable compiled set out.
 *
 *   parseDocuments(source: string, text: string): ParsedSource
 *   parseDocumentsInSlices(source, text, pause): Promise<ParsedSource>  (the same, pausing between slices)
 *     A YAML multi-document stream, a JSON object or a JSON array of objects. `List` kinds are flattened
 *     (each item keeps `index` of its document and `item` of its position). Unreadable documents become
 *     problems; nothing throws.
 *
 *   buildPolicySet(input: ParsedSource | (ParsedSource | SourceDocument)[], options?: BuildOptions): PolicySet
 *   buildPolicySetInSlices(input, options, pause, sliceMs?): Promise<PolicySet>  (the same, pausing between slices)
 *     Sorts the documents out by kind: MutatingAdmissionPolicy / MutatingAdmissionPolicyBinding
 *     (admissionregistration.k8s.io v1, v1beta1, v1alpha1: API defaults applied, validated as the API
 *     server validates them, expressions compiled), Kyverno ClusterPolicy / Policy, Kyverno MutatingPolicy /
 *     NamespacedMutatingPolicy (policies.kyverno.io v1alpha1, v1beta1, v1: loaded by src/mpol, compiled in
 *     the Kyverno CEL dialect, appended to `mutatingPolicies` after the MutatingAdmissionPolicies with their
 *     autogen variants; calls of cluster/network CEL libraries refuse the policy), CustomResourceDefinition
 *     (schemas; declared kinds and scopes), Namespace (namespaceSelector, namespaceObject), and every other
 *     kind as a param object. `problems` lists each problem with source, index, kind, name, field path,
 *     message and `effect` ('ignored': left out of the set, e.g. a policy whose expressions do not compile,
 *     refused as the API server refuses it; 'kept': still active, its error surfacing at evaluation under
 *     the policy's failurePolicy — a binding's warnings, or compile errors under `compileErrors: 'keep'`,
 *     the API server's semantics for a policy it already stores, used by the conformance vectors). `counts` is
 *     what /readyz shows: mutatingAdmissionPolicies, mutatingAdmissionPolicyBindings, kyvernoPolicies,
 *     kyvernoMutatingPolicies,
 *     params (objects of any other kind, Namespaces included), namespaces, customResourceDefinitions,
 *     problems. Kyverno policies are also checked for what would fail or do nothing at admission
 *     (src/kyverno findings; kinds no built-in kind or CRD of the set declares; ConfigMaps the set does
 *     not hold): refused (`ignored`) or kept with the problem, as README "Kyverno policies: what cannot
 *     run off-cluster" decides; Kyverno documents Amender does not run (policies.kyverno.io kinds other
 *     than MutatingPolicy / NamespacedMutatingPolicy, kyverno.io kinds other than ClusterPolicy / Policy)
 *     are problems too. BuildOptions: `schemas` (registry to extend; a kind with no schema there, built
 *     in or from a CRD of the set, merges with SMD's deduced schema, since a webhook cannot know every
 *     CRD of a cluster, where kube-apiserver would answer 503), `compileErrors`
 *     ('refuse' | 'keep', default 'refuse'; 'keep' also keeps Kyverno policies with JMESPath errors),
 *     `contextValues` (true: Kyverno context values stand in for cluster-only context entries, as in
 *     Kyverno's CLI — such policies are kept), `unknownVariables` ('refuse' | 'keep', default 'refuse':
 *     a Kyverno policy with a `{{ }}` variable Kyverno's policy validation does not know; 'keep' in
 *     `amender apply` and `test`, where values may define it), `compile` ('load' | 'first-use': when
 *     MutatingAdmissionPolicies compile; default 'first-use' for a set made only of sources validated at
 *     build — the bundled set — else 'load'). The set never changes once built; rebuild it on reload
 *     (compiled CEL programs come from the CEL cache, so a rebuild compiles only what changed).
 *
 *   isPolicyDocument(document): boolean   a MAP or binding, Kyverno ClusterPolicy/Policy, policies.kyverno.io kind
 */
export { parseDocuments, parseDocumentsInSlices, withoutQuotedSource } from './parse.js';
export { buildPolicySet, buildPolicySetInSlices, BUILD_SLICE_MS, type BuildOptions, type PolicySet, type PolicySetCounts } from './build.js';
export type { ParsedSource, Problem, SourceDocument } from './types.js';
export type { ObjectStore } from './objects.js';
export { buildPolicySetWithTemplates, preloadPatchTemplates, type PatchTemplateEntry } from './prebuilt.js';
export { fixedPolicySet, type PolicySetProvider, type PolicySetState } from './state.js';
export { isPolicyDocument } from './policy-documents.js';
