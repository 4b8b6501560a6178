/**
 * Runs Kyverno policies on one resource as `kyverno test` / `kyverno apply` do (processor/
 * policy_processor.go): the policies in the order given (file order), each on the resource as the
 * previous one left it, with the values of that policy and resource, the request operation they name
 * (default CREATE; UPDATE sends the resource as its own oldObject), the test's user info and namespace
 * labels. Each rule runs through Amender's engine (`runKyvernoPolicies`), so what is checked is what the
 * webhook does.
 */
import type { AdmissionRequest, Operation } from '../../admission/index.js';
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { evaluate } from '../../engine/index.js';
import { defaultReviewGuard } from '../../guard/index.js';
import { runKyvernoPolicies, type CompiledKyvernoPolicy, type KyvernoRuleOutcome } from '../../kyverno/index.js';
import { dispatch, NO_EQUIVALENTS, type InvocationTrace } from '../../map/index.js';
import type { PolicySet } from '../../policyset/index.js';
import { reviewForResource } from '../resource-review.js';
import { bindAsKyvernoCli } from './map-binding.js';
import { ruleValuesFor, valuesFor, type ValuesSpec } from './values.js';

export interface RequestInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  roles?: string[];
  clusterRoles?: string[];
}

/** What a response names of its policy (a compiled Kyverno policy fits). */
export interface PolicyRef {
  name: string;
  kind: string;
  id: string;
  failurePolicy: 'Fail' | 'Ignore';
}

export interface PolicyResponse {
  policy: PolicyRef;
  /** The rules that matched, in the order they ran (none: the resource was not matched). */
  rules: readonly KyvernoRuleOutcome[];
  /** The resource after this policy (and every earlier one). */
  patched: JsonValue;
  operation: Operation;
  /** Kyverno's admission warnings of this policy (`spec.emitWarning: true`). */
  warnings?: readonly string[];
}

export interface EvaluateOptions {
  set: PolicySet;
  /** Kyverno policies in the order to apply them. */
  policies: readonly CompiledKyvernoPolicy[];
  documents: readonly JsonObject[];
  values: ValuesSpec;
  /** `--set` pairs, over the values file. */
  setValues?: Readonly<Record<string, JsonValue>>;
  userInfo?: RequestInfo;
  /** Overrides the operation the values name (a test result's `operation`). */
  operation?: Operation;
  /** The object before an UPDATE; default: the resource itself, as the Kyverno CLI sends it. */
  oldObject?: JsonObject;
  /**
   * A namespace neither the values nor the policy set describe: `empty` labels (the Kyverno CLI, the
   * default) or `unknown` (the webhook: a non-empty namespaceSelector is then a rule error).
   */
  unknownNamespace?: 'empty' | 'unknown';
  /**
   * Roles and cluster roles the user info does not give: none (`empty`, the Kyverno CLI, the default) or
   * `unknown` (the webhook: a rule whose match or exclude names roles is then not run).
   */
  unknownRoles?: 'empty' | 'unknown';
}

const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

function operationOf(values: Record<string, JsonValue>, override: Operation | undefined): Operation {
  if (override) return override;
  const op = values['request.operation'];
  return typeof op === 'string' && OPERATIONS.includes(op as Operation) ? (op as Operation) : 'CREATE';
}

function metaString(obj: JsonValue, key: string): string {
  const m = isJsonObject(obj) ? getOwn(obj, 'metadata') : undefined;
  const v = isJsonObject(m) ? getOwn(m, key) : undefined;
  return typeof v === 'string' ? v : '';
}

/** A subresource kind listed in the values is sent as its parent's request with that subresource. */
function applySubresource(request: AdmissionRequest, values: ValuesSpec): void {
  for (const s of values.subresources) {
    const sub = s.subresource;
    if (sub.group !== request.kind.group || sub.version !== request.kind.version || sub.kind !== request.kind.kind) continue;
    const parent = s.parentResource;
    const subName = sub.name.split('/')[1] ?? '';
    request.kind = { group: parent.group, version: parent.version, kind: parent.kind };
    request.requestKind = request.kind;
    request.resource = { group: parent.group, version: parent.version, resource: parent.name };
    request.requestResource = request.resource;
    request.subResource = subName;
    request.requestSubResource = subName;
  }
}

function namespaceLabels(namespace: string, options: EvaluateOptions): Record<string, string> | undefined {
  if (namespace === '') return undefined;
  const given = options.values.namespaceLabels.get(namespace);
  if (given) return given;
  const ns = options.set.objects.namespace(namespace);
  const labels = ns && isJsonObject(getOwn(ns, 'metadata')) ? getOwn(getOwn(ns, 'metadata') as JsonObject, 'labels') : undefined;
  if (isJsonObject(labels)) return labels as Record<string, string>;
  if (ns) return {};
  // A namespace the test does not describe has no labels, as in the Kyverno CLI (unless asked otherwise).
  return options.unknownNamespace === 'unknown' ? undefined : {};
}

/** Every policy's response for one resource, cumulative in policy order. */
export async function evaluateResource(resource: JsonObject, options: EvaluateOptions): Promise<PolicyResponse[]> {
  const responses: PolicyResponse[] = [];
  let current: JsonValue = resource;
  const name = metaString(resource, 'name');
  for (const policy of options.policies) {
    const values = valuesFor(options.values, policy.name, name, options.setValues);
    const operation = operationOf(values, options.operation);
    values['request.operation'] = operation;
    const object = isJsonObject(current) ? current : resource;
    const review = reviewForResource({
      object,
      oldObject: operation === 'UPDATE' ? (options.oldObject ?? object) : operation === 'DELETE' ? object : undefined,
      operation,
      username: options.userInfo?.username,
      uid: options.userInfo?.uid,
      groups: options.userInfo?.groups,
      extra: options.userInfo?.extra,
      documents: options.documents,
    });
    const request = review.request as unknown as AdmissionRequest;
    applySubresource(request, options.values);
    const result = await runKyvernoPolicies([policy], {
      request,
      object: operation === 'DELETE' ? null : object,
      namespaceLabels: namespaceLabels(request.namespace ?? '', options),
      // Kyverno's CLI knows the requester's roles: those of the user info, else none.
      roles: options.userInfo?.roles ?? (options.unknownRoles === 'unknown' ? undefined : []),
      clusterRoles: options.userInfo?.clusterRoles ?? (options.unknownRoles === 'unknown' ? undefined : []),
      sources: {
        configMap: (namespace, cmName) => options.set.objects.get('', 'ConfigMap', namespace, cmName),
      },
      values,
      ruleValues: (policyName, ruleName) => ruleValuesFor(options.values, policyName, ruleName),
    });
    const outcome = result.policies[0];
    if (operation !== 'DELETE') current = result.object;
    responses.push({ policy, rules: outcome?.rules ?? [], patched: current, operation, ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}) });
  }
  return responses;
}

/** A MutatingAdmissionPolicy of a test, with a policy set of its own (it, its bindings, the params). */
export interface MapUnderTest {
  name: string;
  set: PolicySet;
  failurePolicy: 'Fail' | 'Ignore';
  /** The test's objects (params, Namespaces) in file order: the order of a label-selected params list. */
  documents: readonly JsonObject[];
}

const MAP_STATUS: Record<string, 'applied' | 'skipped' | 'error'> = { mutated: 'applied', unchanged: 'applied', skipped: 'skipped', error: 'error' };

/**
 * One MutatingAdmissionPolicy on the resource, through Amender's MAP engine (`dispatch`), bound as
 * Kyverno's CLI binds it (map-binding.ts: an unbound policy as if bound, label-selected params as one
 * list): one result named after the policy, as the Kyverno CLI reports it — pass when it ran (changed or
 * not), skip when its matchConditions were false, error when an invocation failed; no response at all
 * when nothing matched.
 */
export async function evaluateMap(map: MapUnderTest, resource: JsonObject, options: EvaluateOptions): Promise<PolicyResponse | undefined> {
  const bound = map.set.mutatingPolicies.find((b) => !b.kyverno && b.policy.name === map.name);
  if (!bound) return undefined;
  return evaluateCelPolicy(map, 'MutatingAdmissionPolicy', resource, options, (request) => {
    const cli = bindAsKyvernoCli(bound, request.namespace ?? '', map.set.objects, map.documents);
    const result = dispatch([cli.policy], request, {
      params: cli.params,
      namespaces: (name) => map.set.objects.namespace(name) ?? valuesNamespace(options, name) ?? unlabelledNamespace(options, name),
      equivalence: NO_EQUIVALENTS,
      // The bounds `evaluate` gives a review (the webhook's defaults).
      guard: defaultReviewGuard(),
    });
    if (result.abort) return { allowed: false, object: null, traces: result.traces };
    return { allowed: result.errors.length === 0, object: result.object, traces: result.traces };
  });
}

/**
 * A namespace the test does not describe, as Kyverno's CLI gives a MutatingAdmissionPolicy one (the
 * request's namespace with no labels: admissionpolicy/mutate.go), unless asked to treat it as unknown.
 */
function unlabelledNamespace(options: EvaluateOptions, name: string): JsonObject | undefined {
  return options.unknownNamespace === 'unknown' ? undefined : { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** A namespace of the values (its labels), for namespaceSelector and namespaceObject. */
function valuesNamespace(options: EvaluateOptions, name: string): JsonObject | undefined {
  const labels = options.values.namespaceLabels.get(name);
  return labels ? { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } : undefined;
}

/** A Kyverno MutatingPolicy / NamespacedMutatingPolicy of a test, in a policy set of its own. */
export interface MutatingPolicyUnderTest {
  /** metadata.name (what test results name). */
  name: string;
  kind: 'MutatingPolicy' | 'NamespacedMutatingPolicy';
  set: PolicySet;
  failurePolicy: 'Fail' | 'Ignore';
}

/**
 * One Kyverno MutatingPolicy (with its autogen variants) on the resource, through Amender's engine: one
 * result with an empty rule name, as Kyverno reports it — pass when it ran, skip when its
 * matchConditions were false, error when it failed; no rule at all when nothing matched (an "Excluded"
 * pass in the table, as in the Kyverno CLI).
 */
export async function evaluateMutatingPolicy(mpol: MutatingPolicyUnderTest, resource: JsonObject, options: EvaluateOptions): Promise<PolicyResponse> {
  const response = await evaluateCelPolicy(mpol, mpol.kind, resource, options);
  if (response) return { ...response, rules: response.rules.map((r) => ({ ...r, rule: '' })) };
  const operation = operationOf(valuesFor(options.values, mpol.name, metaString(resource, 'name'), options.setValues), options.operation);
  return { policy: { name: mpol.name, kind: mpol.kind, id: `${mpol.kind}/${mpol.name}`, failurePolicy: mpol.failurePolicy }, rules: [], patched: resource, operation };
}

/** What a CEL policy did to one request: its traces and, when allowed, the object it left. */
interface CelRun {
  allowed: boolean;
  object: JsonValue | null;
  traces: readonly InvocationTrace[];
}

/** A Kyverno MutatingPolicy runs as the webhook runs it (`evaluate`); its traces are its outcomes. */
async function runInSet(set: PolicySet, request: AdmissionRequest, options: EvaluateOptions): Promise<CelRun> {
  // Kyverno's CLI matches a namespace the test does not describe by a stand-in (its CEL matcher's).
  const standIn = options.unknownNamespace !== 'unknown';
  const result = await evaluate(set, request, { namespaceLookup: (name) => valuesNamespace(options, name), ...(standIn ? { namespaceStandIn: true } : {}) });
  return { allowed: result.allowed, object: result.allowed ? result.object : null, traces: result.outcomes.filter((o) => o.engine === 'MutatingPolicy') };
}

async function evaluateCelPolicy(
  map: { name: string; set: PolicySet; failurePolicy: 'Fail' | 'Ignore' },
  kind: 'MutatingAdmissionPolicy' | 'MutatingPolicy' | 'NamespacedMutatingPolicy',
  resource: JsonObject,
  options: EvaluateOptions,
  run: (request: AdmissionRequest) => CelRun | Promise<CelRun> = (request) => runInSet(map.set, request, options),
): Promise<PolicyResponse | undefined> {
  const values = valuesFor(options.values, map.name, metaString(resource, 'name'), options.setValues);
  const operation = operationOf(values, options.operation);
  const review = reviewForResource({
    object: resource,
    oldObject: operation === 'UPDATE' || operation === 'DELETE' ? (options.oldObject ?? resource) : undefined,
    operation,
    username: options.userInfo?.username,
    uid: options.userInfo?.uid,
    groups: options.userInfo?.groups,
    extra: options.userInfo?.extra,
    documents: options.documents,
  });
  const request = review.request as unknown as AdmissionRequest;
  applySubresource(request, options.values);
  const result = await run(request);
  const traces = result.traces;
  if (traces.length === 0) return undefined;
  const statuses = traces.map((t) => MAP_STATUS[t.result]);
  const status = statuses.includes('error') ? 'error' : statuses.includes('applied') ? 'applied' : 'skipped';
  const message = traces.map((t) => `${kind !== 'MutatingAdmissionPolicy' ? `pass ${t.pass}` : t.binding ? `binding ${t.binding}` : 'no binding'}${t.param ? ` param ${t.param.namespace ? `${t.param.namespace}/` : ''}${t.param.name}` : ''}: ${t.result}${t.detail ? ` (${t.detail})` : ''}`).join('; ');
  const patched = result.allowed && isJsonObject(result.object) ? result.object : resource;
  return {
    policy: { name: map.name, kind, id: `${kind}/${map.name}`, failurePolicy: map.failurePolicy },
    rules: [{ rule: map.name, status, message, durationMs: traces.reduce((sum, o) => sum + (o.durationMs ?? 0), 0) }],
    patched,
    operation,
  };
}
