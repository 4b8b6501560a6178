/**
 * Kind → resource, for turning Kyverno `kinds` into webhook rules (which name resources). Built-in kinds
 * come from the schema data (every kind a 1.36/1.37 API server serves, src/schema/data) with the resource
 * name Kubernetes itself derives from a kind (lower case, then `s`/`es`/`ies`; `endpoints` stays); the
 * kinds that only exist as subresources (Scale, Eviction, TokenRequest, and Binding's `pods/binding`)
 * are listed with where they appear. CustomResourceDefinitions in the policy set add their kinds with
 * their declared plural. A kind nobody declares gets Kubernetes' guessed plural when its group is written
 * out (`group/version/Kind`) and is reported; a bare unknown kind cannot be placed in a group and is
 * reported as unresolved.
 */
import { guessResource } from '../k8s/index.js';
import { builtinKinds } from '../schema/index.js';

export interface KindEntry {
  group: string;
  version: string;
  kind: string;
  /** Resource patterns the kind appears as, in the group `resourceGroup` (default: `group`). */
  resources: readonly string[];
  resourceGroup?: string;
  /** The subresource kinds' API version is not the resource's: rules then take any version. */
  anyVersion?: boolean;
  source: 'builtin' | 'crd';
}

/** Kinds served only (or also) as a subresource of other resources. */
const SUBRESOURCE_KINDS: Record<string, readonly { resourceGroup: string; resources: readonly string[] }[]> = {
  'autoscaling/Scale': [
    { resourceGroup: 'apps', resources: ['deployments/scale', 'replicasets/scale', 'statefulsets/scale'] },
    { resourceGroup: '', resources: ['replicationcontrollers/scale'] },
  ],
  'policy/Eviction': [{ resourceGroup: '', resources: ['pods/eviction'] }],
  'authentication.k8s.io/TokenRequest': [{ resourceGroup: '', resources: ['serviceaccounts/token'] }],
  '/Binding': [{ resourceGroup: '', resources: ['bindings', 'pods/binding'] }],
};

let builtinTable: KindEntry[] | undefined;

/** Every built-in kind with its resources (computed once from the schema data). */
export function builtinKindTable(): readonly KindEntry[] {
  builtinTable ??= builtinKinds().flatMap((gvk): KindEntry[] => {
    const [group, version, kind] = gvk.split('/');
    const special = SUBRESOURCE_KINDS[`${group}/${kind}`];
    if (special) return special.map((s) => ({ group, version, kind, resources: s.resources, resourceGroup: s.resourceGroup, anyVersion: true, source: 'builtin' }));
    return [{ group, version, kind, resources: [guessResource(kind)], source: 'builtin' }];
  });
  return builtinTable;
}

/** The kinds a CustomResourceDefinition declares (one entry per served version); [] when malformed. */
export function crdKinds(crd: unknown): KindEntry[] {
  const spec = (crd as { spec?: Record<string, unknown> } | null)?.spec;
  const names = spec?.names as { kind?: unknown; plural?: unknown } | undefined;
  const group = spec?.group;
  if (typeof group !== 'string' || typeof names?.kind !== 'string') return [];
  const plural = typeof names.plural === 'string' && names.plural !== '' ? names.plural : guessResource(names.kind);
  const versions = Array.isArray(spec?.versions) ? (spec.versions as { name?: unknown; served?: unknown }[]) : [];
  const served = versions.filter((v) => typeof v?.name === 'string' && v.served !== false).map((v) => v.name as string);
  return (served.length ? served : ['*']).map((version) => ({ group, version, kind: names.kind as string, resources: [plural], source: 'crd' as const }));
}
