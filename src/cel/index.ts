/**
 * The Kubernetes admission CEL environment (MutatingAdmissionPolicy, spec map.md §5, §7–§9, §12, §13).
 *
 * ## Compile (once per process per distinct expression; results are cached)
 *
 *   const vars = CompiledVariables.compile(policy.spec.variables ?? [], { params: hasParamKind });
 *   // each entry: { name, type, compiled? , error? } — a failed variable is typed dyn and fails on access
 *   const r = compileExpression(expr, 'matchCondition' | 'variable' | 'jsonPatch' | 'applyConfiguration',
 *                               vars.scope());            // or { params: boolean } without variables
 *   // r: { ok: true, compiled: CompiledExpression }  (compiled.type / compiled.typeName: static type)
 *   //  | { ok: false, message }  — 'compilation failed: ERROR: <input>:1:5: ...' (cel-go text, with the
 *   //    source line and caret) or 'must evaluate to bool but got int' (result-type check, §7.7)
 *
 * Roles: a matchCondition must be `bool`, a JSONPatch mutation `list(JSONPatch)`, an ApplyConfiguration
 * `Object`; variables may have any type. `Object`/`JSONPatch` and their construction syntax exist in
 * the variable and mutation environments, not in matchConditions.
 *
 * ## Evaluate (one Evaluation per matchCondition set or per mutation)
 *
 *   const ev = new Evaluation(
 *     { object, oldObject, request, params, namespaceObject, authorizer },   // JSON documents
 *     { budget: RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS (2.5M) | RUNTIME_CEL_COST_BUDGET (10M),
 *       variables: vars });
 *   const res = ev.evaluate(r.compiled);
 *   // res: { ok: true, value, cost }
 *   //    | { ok: false, kind: 'runtime', message: "expression '<expr>' resulted in error: <err>" }
 *   //    | { ok: false, kind: 'budget', message: OUT_OF_BUDGET_MESSAGE }  (the whole set/mutation fails)
 *   // With `guard` (src/guard) in the options: a passed deadline, a cancellation or a value over the size
 *   // bound throws the guard's ReviewAborted out of evaluate (see README.md, "Review bounds").
 *
 * Each expression runs under PerCallLimit (1,000,000): exceeding it stops evaluation at once with
 * "operation cancelled: actual cost limit exceeded". Variables are evaluated on first access, once per
 * Evaluation, their cost charged to the budget once (§7.5); their failures read
 * `composited variable "<n>" fails to compile|evaluate: <err>`. `authorizer` and
 * `authorizer.requestResource` evaluate to an error unless an authorizer binding is supplied.
 *
 * Documents are read lazily: nothing is converted until an expression reads it, integers are int
 * (unless `isFloatLiteral`, src/json), other numbers double. Inputs are never mutated.
 *
 * ## Convert results
 *
 *   toJsonPatchOperations(value)  → [{ op, path, from?, value? }]            (§8.2)
 *   toApplyConfiguration(value)   → JSON object (apiVersion/kind not stamped) (§9.2, §9.3); the Go values
 *                                   JSON has no form for (null, timestamp, duration, bytes, a nested CEL
 *                                   map) stay in it as GoNative values for the schema check to refuse, and
 *                                   an int64 past ±2^53 is marked exact (src/json/exact-integers.ts)
 *   celToJson(value)              → JSON (integral doubles marked as float literals)
 * They throw `ConversionError` with the Kubernetes text (type-name mismatch, non-string map key).
 *
 * ## Other environments
 *
 *   new CelEnvironment({ container?, variables?: { name: 'type' }, homogeneousAggregateLiterals? })
 *     .compile(expr, { check? }) → { ok, program: GeneralProgram, typeName } | { ok: false, message }
 *   program.evaluate(bindings, costLimit?) → { ok, value, cost } | { ok: false, message, cost }
 * Plain CEL with the same engine and libraries (conformance runs, tools). Values follow
 * src/cel/engine/values.ts (int bigint, uint CelUint, timestamps Timestamp, ...).
 *
 * ## Libraries
 *
 * Function libraries implement `CelLibrary` (src/cel/library.ts): they declare functions and types on a
 * `LibraryRegistrar` (`registerFunction('quantity(string): kubernetes.Quantity', impl)`) and price
 * their calls in cel-go/Kubernetes cost units. Declarations are parsed on first use.
 *
 * Kyverno's CEL policies compile with `dialect: 'kyverno'` in the scope: Kyverno's libraries (regex
 * extension, image, json, yaml, time, math, hash, transform; src/cel/lib/kyverno), and matchConditions in
 * the mutation environment with `variables`. `findClusterCalls(expr)` lists calls of Kyverno libraries
 * that need a cluster or network (resource, http, imagedata, globalContext).
 *
 * ## Cache metrics
 *
 *   programCacheStats() → { hits, misses, size, capacity, evictions }  (for /metrics)
 */
export {
  compileExpression,
  CompiledExpression,
  configureProgramCache,
  programCacheStats,
  ROLES,
  type CelRole,
  type CompileResult,
  type CompileScope,
} from './k8s/compile.js';
export type { CacheStats } from './k8s/cache.js';
export type { CelDialect } from './k8s/environment.js';
export { findClusterCalls, referencesIdentifier, CLUSTER_LIBRARIES, type ClusterCall } from './lib/kyverno/index.js';
export { CompiledVariables, type CompiledVariable, type VariableDefinition } from './k8s/variables.js';
export { VariableScope } from './k8s/variable-scope.js';
export {
  Evaluation,
  OUT_OF_BUDGET_MESSAGE,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
  SharedVariables,
  type AdmissionInput,
  type EvalResult,
  type EvaluationOptions,
} from './k8s/evaluation.js';
export {
  celToJson,
  ConversionError,
  toApplyConfiguration,
  toJsonPatchOperations,
  type ConvertedSize,
} from './k8s/convert.js';
export { formatCelValue, celTypeName } from './k8s/format.js';
export {
  CelEnvironment,
  GeneralProgram,
  type CelEnvironmentOptions,
  type GeneralCompileResult,
  type GeneralEvalResult,
} from './general.js';
export { CelOptional, CelUint, Duration, StructValue, Timestamp, TypeValue, type CelValue } from './engine/values.js';
export { celEquals } from './engine/runtime.js';
export { rootReadPaths } from './engine/root-reads.js';
export type { CelLibrary, CelLibraryValue, FunctionOptions, LibraryRegistrar } from './library.js';
export type { Authorizer, AuthorizationAttributes, AuthorizationDecision, UserInfo } from './lib/index.js';
/** The libraries of Kubernetes' environments, for a `CelEnvironment` that should behave as they do. */
export { KUBERNETES_LIBRARIES } from './lib/index.js';
// Go's net/url and net/netip ports, also behind Kyverno's is_external_url (src/kyverno/jmespath).
export { parseURL, hostname as urlHostname, UrlError } from './lib/go-url.js';
export { parseAddr as parseNetipAddr, NetipError } from './lib/netip.js';
