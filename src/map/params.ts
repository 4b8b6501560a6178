/**
 * Which params a (policy, binding) pair runs with (`generic/policy_dispatcher.go: CollectParams`), as
 * spec/map.md §4 tabulates it. Every resulting param is one invocation; selector results run in
 * (namespace, name) order.
 */
import { getOwn, isJsonObject, type JsonObject } from '../json/index.js';
import { parseApiVersion } from '../schema/index.js';
import type { Scope } from './builtin-kinds.js';
import { toSelector } from './labels.js';
import { objectLabels } from './match-resources.js';
import type { MutatingAdmissionPolicyBinding, ParamKind } from './types.js';

export interface ParamObject {
  namespace: string;
  name: string;
  /** The object as CEL sees it (built-in kinds without apiVersion/kind). */
  value: JsonObject;
}

/** What the policy sources know about param kinds and objects. */
export interface ParamSource {
  /** Scope of a kind, or undefined when no source knows the kind. */
  scopeOf(group: string, kind: string): Scope | undefined;
  /** Objects of a kind, sorted by (namespace, name); `namespace` undefined = every namespace. */
  objects(group: string, kind: string, namespace: string | undefined): readonly ParamObject[];
}

/** One invocation's param: `declared` false when the policy has no paramKind (`params` not in CEL). */
export type InvocationParam = { declared: false } | { declared: true; param: ParamObject | null };

export type ParamResolution =
  | { params: InvocationParam[] }
  | { error: string; level: 'policy' | 'binding' };

/** `schema.GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
export function gvkString(pk: ParamKind): string {
  const { group, version } = parseApiVersion(pk.apiVersion);
  return `${group}/${version}, Kind=${pk.kind}`;
}

export function resolveParams(
  paramKind: ParamKind | undefined,
  binding: MutatingAdmissionPolicyBinding,
  requestNamespace: string,
  source: ParamSource,
): ParamResolution {
  if (!paramKind) return { params: [{ declared: false }] };
  const { group } = parseApiVersion(paramKind.apiVersion);
  const scope = source.scopeOf(group, paramKind.kind);
  if (!scope) return { level: 'policy', error: `failed to find resource referenced by paramKind: '${gvkString(paramKind)}'` };
  const ref = binding.paramRef;
  if (!ref) return { params: [{ declared: true, param: null }] };

  let namespace: string | undefined;
  if (scope === 'Cluster') {
    if (ref.namespace) return { level: 'binding', error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  } else {
    namespace = ref.namespace || requestNamespace;
    if (!namespace) return { level: 'binding', error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  }

  let found: ParamObject[];
  if (ref.name) {
    if (ref.selector) return { level: 'binding', error: 'paramRef.name and paramRef.selector are mutually exclusive' };
    found = source.objects(group, paramKind.kind, namespace).filter((p) => p.name === ref.name);
  } else if (ref.selector) {
    const parsed = toSelector(ref.selector);
    if (parsed.error !== undefined) return { level: 'binding', error: parsed.error };
    const selector = parsed.selector;
    found = source.objects(group, paramKind.kind, namespace).filter((p) => selector.matches(objectLabels(p.value) ?? undefined));
  } else {
    return { level: 'binding', error: 'one of name or selector must be specified' };
  }
  if (found.length === 0) {
    if (ref.parameterNotFoundAction === 'Deny') {
      return { level: 'binding', error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
    }
    return { params: [] };
  }
  return { params: found.map((param) => ({ declared: true as const, param })) };
}

/** Namespace and name of an object document. */
export function objectIdentity(obj: JsonObject): { namespace: string; name: string } {
  const meta = getOwn(obj, 'metadata');
  if (!isJsonObject(meta)) return { namespace: '', name: '' };
  const ns = getOwn(meta, 'namespace');
  const name = getOwn(meta, 'name');
  return { namespace: typeof ns === 'string' ? ns : '', name: typeof name === 'string' ? name : '' };
}
