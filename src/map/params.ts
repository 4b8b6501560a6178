/**
 * Which params a (policy, binding) pair runs with (`generic/policy_dispatcher.go: CollectParams`), as
 * spec/map.md §4 tabulates it. Every resulting param is one invocation; selector results run in
 * (namespace, name) order.
 */
import type { JsonObject } from '../json/index.js';
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
  /**
   * Scope of a kind, or undefined when no source knows the kind (at `version`, when given: a kind a CRD
   * declares is known at the versions it serves).
   */
  scopeOf(group: string, kind: string, version?: string): Scope | undefined;
  /**
   * Objects of a kind, sorted by (namespace, name); `namespace` undefined = every namespace. `version`
   * given: as served at that version (a custom resource's apiVersion is `group/version`).
   */
  objects(group: string, kind: string, namespace: string | undefined, version?: string): readonly ParamObject[];
}

/** One invocation's param: `declared` false when the policy has no paramKind (`params` not in CEL). */
export type InvocationParam = { declared: false } | { declared: true; param: ParamObject | null };

export type ParamResolution = { params: readonly InvocationParam[] } | { error: string };

/** A policy without paramKind: one invocation, `params` undeclared (shared: asked for every binding of every review). */
const UNDECLARED: ParamResolution = Object.freeze({ params: Object.freeze([Object.freeze({ declared: false as const })]) });

/** A policy's paramKind as the policy sources know it. */
export interface ResolvedParamKind {
  group: string;
  /** The paramKind's version: its params are listed, and served, at it. */
  version: string;
  kind: string;
  scope: Scope;
}

/** The paramKind's group and scope, or the policy's configuration error when no source knows the kind. */
export function resolveParamKind(paramKind: ParamKind, source: ParamSource): ResolvedParamKind | { error: string } {
  const { group, version } = parseApiVersion(paramKind.apiVersion);
  // kube-apiserver's REST mapper resolves the kind at the paramKind's version (generic/policy_source.go).
  const scope = source.scopeOf(group, paramKind.kind, version);
  // The kind as `schema.GroupVersionKind.String()` writes it: `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`.
  if (!scope) return { error: `failed to find resource referenced by paramKind: '${group}/${version}, Kind=${paramKind.kind}'` };
  return { group, version, kind: paramKind.kind, scope };
}

/**
 * The objects of `all` (every namespace) named `name` in `namespace` (every one when undefined), in one
 * pass: a binding naming its param is the common case, asked on every review.
 */
function named(all: readonly ParamObject[], namespace: string | undefined, name: string): ParamObject[] {
  const out: ParamObject[] = [];
  for (const p of all) if (p.name === name && (namespace === undefined || p.namespace === namespace)) out.push(p);
  return out;
}

/** The params of one binding; `paramKind` undefined when the policy declares none. Errors are the binding's. */
export function resolveParams(
  paramKind: ResolvedParamKind | undefined,
  binding: MutatingAdmissionPolicyBinding,
  requestNamespace: string,
  source: ParamSource,
): ParamResolution {
  if (!paramKind) return UNDECLARED;
  const { group, version, kind, scope } = paramKind;
  const ref = binding.paramRef;
  if (!ref) return { params: [{ declared: true, param: null }] };

  let namespace: string | undefined;
  if (scope === 'Cluster') {
    if (ref.namespace) return { error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  } else {
    namespace = ref.namespace || requestNamespace;
    if (!namespace) return { error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  }

  let found: ParamObject[];
  if (ref.name) {
    if (ref.selector) return { error: 'paramRef.name and paramRef.selector are mutually exclusive' };
    found = named(source.objects(group, kind, undefined, version), namespace, ref.name);
  } else if (ref.selector) {
    const parsed = toSelector(ref.selector);
    if (parsed.error !== undefined) return { error: parsed.error };
    const selector = parsed.selector;
    found = source.objects(group, kind, namespace, version).filter((p) => selector.matches(objectLabels(p.value) ?? undefined));
  } else {
    return { error: 'one of name or selector must be specified' };
  }
  if (found.length === 0) {
    if (ref.parameterNotFoundAction === 'Deny') {
      return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
    }
    return { params: [] };
  }
  return { params: found.map((param) => ({ declared: true as const, param })) };
}
