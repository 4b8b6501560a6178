/**
 * A MutatingAdmissionPolicy of a test bound as Kyverno's CLI binds it (pkg/admissionpolicy/mutate.go
 * offline: processMAPNoBindings, processMAPWithoutClient), where that differs from a cluster:
 *
 * - a policy without a binding runs as if one binding named it, narrowing nothing and giving no params
 *   (a cluster never runs an unbound policy);
 * - a binding whose `paramRef.selector` selects params runs once with all of them as one list,
 *   `params.items` (an `UnstructuredList`), each param as its file has it (apiVersion and kind kept), in
 *   the order of the test's files; selecting none, it runs once without params (a cluster runs once per
 *   param, and not at all without one).
 *
 * Which params a selector selects, and the rest (matching, a param named by the binding), stay the
 * cluster's: the test's expectations are Kyverno's CLI's only in these two shapes.
 */
import { getOwn, isJsonObject, type JsonObject } from '../../json/index.js';
import {
  resolveParamKind,
  resolveParams,
  type BoundPolicy,
  type MutatingAdmissionPolicyBinding,
  type ParamObject,
  type ParamSource,
} from '../../map/index.js';
import { parseApiVersion } from '../../schema/index.js';

export interface CliBoundPolicy {
  /** The policy with the bindings Kyverno's CLI gives it. */
  policy: BoundPolicy;
  /** The params of the set, and the lists made for selector bindings (found by their names). */
  params: ParamSource;
}

/** One key for an object's group, kind, namespace ('' when absent, as the set keeps it) and name. */
function objectKey(group: string, kind: string, namespace: string, name: string): string {
  return [group, kind, namespace, name].join('\u0000');
}

/** objectKey of an object document. */
function identity(doc: JsonObject): string {
  const apiVersion = getOwn(doc, 'apiVersion');
  const kind = getOwn(doc, 'kind');
  const m = getOwn(doc, 'metadata');
  const ns = isJsonObject(m) ? getOwn(m, 'namespace') : undefined;
  const name = isJsonObject(m) ? getOwn(m, 'name') : undefined;
  const group = typeof apiVersion === 'string' ? parseApiVersion(apiVersion).group : '';
  return objectKey(group, typeof kind === 'string' ? kind : '', typeof ns === 'string' ? ns : '', typeof name === 'string' ? name : '');
}

/** The params in file order, each `value` as its file has it (one the documents lack goes last, as the set has it). */
function inFileOrder(found: readonly ParamObject[], kind: { group: string; kind: string }, documents: readonly JsonObject[]): ParamObject[] {
  const wanted = new Map(found.map((p) => [objectKey(kind.group, kind.kind, p.namespace, p.name), p]));
  const out: ParamObject[] = [];
  for (const doc of documents) {
    const id = identity(doc);
    const p = wanted.get(id);
    if (!p) continue;
    wanted.delete(id);
    out.push({ ...p, value: doc });
  }
  out.push(...wanted.values());
  return out;
}

interface ListParam {
  group: string;
  kind: string;
  param: ParamObject;
}

/**
 * `bound` as Kyverno's CLI binds it for a request in `requestNamespace`. `params` is where the set looks
 * params up; `documents` are the test's objects in file order (the order of a selector's list).
 */
export function bindAsKyvernoCli(bound: BoundPolicy, requestNamespace: string, params: ParamSource, documents: readonly JsonObject[]): CliBoundPolicy {
  if (bound.bindings.length === 0) {
    const implicit: MutatingAdmissionPolicyBinding = { name: '', policyName: bound.policy.name };
    return { policy: { policy: bound.policy, bindings: [implicit], program: bound.program }, params };
  }
  const lists: ListParam[] = [];
  const paramKind = bound.policy.paramKind ? resolveParamKind(bound.policy.paramKind, params) : undefined;
  const bindings = bound.bindings.map((binding) => {
    const ref = binding.paramRef;
    // A kind no source knows, or no paramKind: left to dispatch, which reports it as a cluster does.
    if (!ref?.selector || !paramKind || 'error' in paramKind) return binding;
    // Selecting none is no error to Kyverno's CLI (whatever parameterNotFoundAction says): it runs without params.
    const { parameterNotFoundAction: _action, ...lookup } = ref;
    const resolved = resolveParams(paramKind, { ...binding, paramRef: lookup }, requestNamespace, params);
    if ('error' in resolved) return binding;
    const found = resolved.params.flatMap((p) => (p.declared && p.param ? [p.param] : []));
    if (found.length === 0) {
      const { paramRef: _dropped, ...withoutParams } = binding;
      return withoutParams;
    }
    const ordered = inFileOrder(found, paramKind, documents);
    const param: ParamObject = { namespace: found[0].namespace, name: `[${ordered.map((p) => p.name).join(', ')}]`, value: { items: ordered.map((p) => p.value) } };
    lists.push({ group: paramKind.group, kind: paramKind.kind, param });
    return { ...binding, paramRef: { name: param.name, ...(ref.namespace ? { namespace: ref.namespace } : {}), ...(ref.parameterNotFoundAction ? { parameterNotFoundAction: ref.parameterNotFoundAction } : {}) } };
  });
  if (lists.length === 0 && bindings.every((b, i) => b === bound.bindings[i])) return { policy: bound, params };
  return {
    policy: { policy: bound.policy, bindings, program: bound.program },
    params: {
      scopeOf: (group, kind, version) => params.scopeOf(group, kind, version),
      // The lists are found by name only (a lookup across namespaces); no selector is left to list them.
      objects: (group, kind, namespace, version) => {
        const own = params.objects(group, kind, namespace, version);
        if (namespace !== undefined) return own;
        const extra = lists.filter((l) => l.group === group && l.kind === kind).map((l) => l.param);
        return extra.length === 0 ? own : [...own, ...extra];
      },
    },
  };
}
