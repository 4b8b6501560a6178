/**
 * Kyverno mutate rules (`kyverno.io/v1` / `v2beta1` `ClusterPolicy` and `Policy`), as specified in
 * shared/spec/kyverno.md. Two steps, both plain data in and out (no platform module, nothing thrown):
 *
 * 1. Compile each policy document once, when a policy set is loaded:
 *
 *      compileKyvernoPolicy(document): CompileResult
 *        → { ok: true, policy: CompiledKyvernoPolicy, warnings, findings, references }
 *                                                                    frozen; reuse it for every request
 *        → { ok: false, problems: [{ path, message }], warnings }   `path` is the field path inside the
 *                                                                    document, e.g. spec.rules[0].match
 *      `findings` ({ path, message, kind: expression | cluster | required | not-run }): what compiles but
 *      would fail or do nothing at admission, for a policy set to decide on (see AdmissionFinding);
 *      `references`: the kinds entries and literal ConfigMaps it checks against its own documents.
 *      kindSelectorKnown(selector, knownKinds)                      does a kinds entry select a known kind?
 *      isKyvernoPolicyDocument(document): boolean                    kyverno.io ClusterPolicy / Policy?
 *
 *    One broken policy only yields problems for itself. Only mutate rules are kept; pod-controller rules
 *    (`autogen-…`) are generated here unless the policy opts out.
 *
 *      compileUnmatchedRule(rule)   one rule without its match block, as Kyverno's rule-level tests run
 *                                   rules (conformance tests)
 *
 * 2. Run the compiled policies against one admission request:
 *
 *      runKyvernoPolicies(policies, input: KyvernoInput): Promise<KyvernoResult>
 *
 *    input: `request` (the AdmissionRequest), `object` (the object as earlier pipeline steps left it;
 *    default request.object), `namespaceLabels` (labels of request.namespace from the Namespace objects
 *    of the policy sources; undefined = unknown namespace: an empty namespaceSelector still matches, a
 *    non-empty one is a rule error), `roles`/`clusterRoles` of the requester when known, `sources`
 *    (`configMap(namespace, name)` lookups in the policy sources; `apiCall(request)` only when a live
 *    cluster API is configured — otherwise apiCall context entries are rule errors), `values` (extra
 *    context values by dotted name, e.g. from the CLI), `guard` (the review's ReviewGuard from
 *    src/guard: deadline, value-size bound, cancellation; default DEFAULT_REVIEW_DEADLINE_MS and
 *    DEFAULT_MAX_VALUE_BYTES).
 *
 *    A rule whose match or exclude names roles/clusterRoles is not run unless `roles` or `clusterRoles`
 *    is given (a webhook's request carries none).
 *
 *    result: `object` (final), `changed`, `warnings` (Kyverno's admission warnings,
 *    `policy <name>.<rule>: <message>`: per rule that failed, and per rule that did not skip of a policy
 *    with `spec.emitWarning: true`; none when the request is rejected), `policies` (per policy with a matching rule: its id,
 *    failurePolicy, status applied | skipped | error, `durationMs`, `aborted` deadline | size |
 *    cancelled when the guard stopped it, and per rule: status applied | skipped | error with a message
 *    and `durationMs`), and `rejection` when a policy with failurePolicy Fail had a failing rule — the
 *    request must then be denied with that message. A failing policy's changes are always dropped
 *    (Ignore: the request proceeds without them), and later policies start from the object without
 *    them; other policies still run and report. A value over the size bound fails its rule only; once
 *    the deadline passes (or the review is cancelled) no further rule runs, and each rule that still
 *    matches is an error "not run: deadline exceeded…", answered by its policy's failurePolicy.
 *
 *    Order: ClusterPolicies by name, then Policies by namespace/name (`sortKyvernoPolicies`), whatever
 *    order they are given in; rules in declaration order (generated rules last). `request.object` is
 *    refreshed after every rule, foreach entry and policy. DELETE and CONNECT requests are not mutated.
 *
 *    The reply patch is the caller's business: diff `input.object` against `result.object`.
 *
 *      kyvernoAuditAnnotations(result)   the reply's audit annotation (`kyverno-mutate`)
 *      formatKyvernoOutcomes(result)     one human-readable line per rule, for the CLI
 */
export {
  compileKyvernoPolicy,
  compileUnmatchedRule,
  isKyvernoPolicyDocument,
  KYVERNO_API_VERSIONS,
  type AdmissionFinding,
  type CompileResult,
  type PolicyProblem,
  type PolicyReferences,
} from './compile.js';
export { kindSelectorKnown, type KnownKind } from './match/kinds.js';
export type { CompiledKyvernoPolicy, CompiledRule } from './types.js';
export { addPatchTemplates, recordPatchTemplates, type PatchTemplateEntry } from './patchers/patch-template.js';
export {
  runKyvernoPolicies,
  policiesMatching as kyvernoPoliciesMatching,
  sortPolicies as sortKyvernoPolicies,
  type KyvernoInput,
  type KyvernoResult,
  type KyvernoPolicyOutcome,
  type KyvernoRuleOutcome,
} from './run.js';
export type { ContextSources, ApiCallRequest } from './context/context-entries.js';
export type { RuleStatus } from './rule.js';
export { kyvernoAuditAnnotations, formatKyvernoOutcomes, KYVERNO_AUDIT_ANNOTATION } from './outcomes.js';
