/**
 * The objects of a policy set that policies read but the webhook cannot see: param objects of any
 * kind, Namespaces, and the kinds CRDs declare. Built once per set; lookups are map reads.
 */
import { getOwn, isJsonObject, setOwn, shallowCopyWithMarks, type JsonObject } from '../json/index.js';
import { builtinScope, isBuiltinGroup, type Scope, type ParamObject, type ParamSource } from '../map/index.js';
import { applyCrdDefaults, parseApiVersion, type SchemaRegistry } from '../schema/index.js';
import { storedBuiltin } from './stored-builtin.js';

export interface DeclaredKind {
  group: string;
  kind: string;
  scope: Scope;
  /** `spec.names.plural`: the resource its requests name. */
  plural?: string;
  /** The versions the CRD serves (`spec.versions[].served`). */
  served?: readonly string[];
}

function kindKey(group: string, kind: string): string {
  return `${group}\u0000${kind}`;
}

/**
 * The identity of one object (kind, namespace, name) as a map key. JSON-quoted, so no two identities
 * share a key whatever their strings hold (a NUL in a hand-written name cannot join two fields).
 */
function documentKey(group: string, kind: string, namespace: string, name: string): string {
  return JSON.stringify([group, kind, namespace, name]);
}

/** Namespace and name of an object document. */
function objectIdentity(obj: JsonObject): { namespace: string; name: string } {
  const meta = getOwn(obj, 'metadata');
  if (!isJsonObject(meta)) return { namespace: '', name: '' };
  const ns = getOwn(meta, 'namespace');
  const name = getOwn(meta, 'name');
  return { namespace: typeof ns === 'string' ? ns : '', name: typeof name === 'string' ? name : '' };
}

/**
 * CEL sees built-in params as typed objects read from an informer: as stored (stored-builtin.ts, when
 * `schemas` is given), without apiVersion/kind.
 */
function celView(obj: JsonObject, typed: boolean, schemas: SchemaRegistry | undefined): JsonObject {
  if (!typed) return obj;
  const stored = schemas ? storedBuiltin(obj, schemas) : obj;
  const out: JsonObject = {};
  for (const key of Object.keys(stored)) if (key !== 'apiVersion' && key !== 'kind') setOwn(out, key, stored[key]);
  return out;
}

/** `obj` with `metadata.namespace` set to `namespace`, or without it when '' (copies; documents are never changed in place). */
function withNamespace(obj: JsonObject, namespace: string): JsonObject {
  const meta = shallowCopyWithMarks(getOwn(obj, 'metadata') as JsonObject);
  if (namespace === '') delete meta.namespace;
  else setOwn(meta, 'namespace', namespace);
  const out = shallowCopyWithMarks(obj);
  setOwn(out, 'metadata', meta);
  return out;
}

export class ObjectStore implements ParamSource {
  private readonly byKind = new Map<string, ParamObject[]>();
  /** A kind's objects as served at a version (its key, then the version), made on first use once sealed. */
  private readonly byKindVersion = new Map<string, Map<string, readonly ParamObject[]>>();
  private readonly declared = new Map<string, Scope>();
  /** The served versions of the kinds CRDs declare. */
  private readonly served = new Map<string, ReadonlySet<string>>();
  /** `group/plural` → Kind, for the kinds CRDs declare. */
  private readonly kindsByResource = new Map<string, string>();
  private readonly namespaces = new Map<string, JsonObject>();
  private readonly documents = new Map<string, JsonObject>();
  private count = 0;
  private sealed = false;

  /** Registers the kind a CRD declares (scope from `spec.scope`). */
  declareKind(k: DeclaredKind): void {
    if (this.sealed) return;
    this.declared.set(kindKey(k.group, k.kind), k.scope);
    if (k.served) this.served.set(kindKey(k.group, k.kind), new Set(k.served));
    if (k.plural) this.kindsByResource.set(`${k.group}/${k.plural}`, k.kind);
  }

  /** The kind a CRD of the set declares for the resource `group`/`resource` (its plural), or undefined. */
  kindOfResource(group: string, resource: string): string | undefined {
    return this.kindsByResource.get(`${group}/${resource}`);
  }

  /**
   * Adds an object; false when one with the same kind, namespace and name is there (or the store is sealed).
   * `schemas`: the set's (CRDs declared before); a param of a built-in kind is then read as stored.
   * `asWritten`: an object of a namespaced kind without a namespace stays in none (Kyverno's CLI).
   */
  add(obj: JsonObject, schemas?: SchemaRegistry, asWritten = false): boolean {
    if (this.sealed) return false;
    const apiVersion = getOwn(obj, 'apiVersion');
    const kind = getOwn(obj, 'kind');
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') return false;
    const { group } = parseApiVersion(apiVersion);
    const key = kindKey(group, kind);
    let { namespace, name } = objectIdentity(obj);
    // kube-apiserver clears the namespace of a cluster-scoped object on create (apiserver
    // registry/rest/meta.go EnsureObjectNamespaceMatchesRequestNamespace): one object per name.
    const scope = this.declared.get(key) ?? builtinScope(group, kind);
    if (namespace !== '' && scope === 'Cluster') {
      obj = withNamespace(obj, '');
      namespace = '';
    } else if (namespace === '' && scope === 'Namespaced' && !asWritten) {
      // The API server has no namespaced object without a namespace: kubectl apply puts one written
      // without it in its context's namespace, `default` unless configured (as `amender apply` does).
      obj = withNamespace(obj, 'default');
      namespace = 'default';
    }
    // One map read per object: a scan of the kind's list for the same identity made n objects of one
    // kind cost n² (40,000 ConfigMaps in a source took 9 s to build).
    const identity = documentKey(group, kind, namespace, name);
    if (this.documents.has(identity)) return false;
    let list = this.byKind.get(key);
    if (!list) this.byKind.set(key, (list = []));
    const typed = isBuiltinGroup(group) && !this.declared.has(key);
    const value = celView(obj, typed, schemas);
    list.push({ namespace, name, value });
    this.documents.set(identity, obj);
    // namespaceSelector and namespaceObject read the Namespace as stored and served by a typed lister
    // (as written for Kyverno's CLI, which adds no kubernetes.io/metadata.name label).
    if (group === '' && kind === 'Namespace' && !namespace) this.namespaces.set(name, asWritten ? obj : value);
    this.count++;
    return true;
  }

  /**
   * Sorts every kind's objects by (namespace, name) and closes the store: a built set never changes.
   * `schemas` (the set's, with its CRDs): the params of a custom resource kind are defaulted by their
   * CRD's schema, as the API server serves them (its CRD codec defaults every object it decodes).
   */
  seal(schemas?: SchemaRegistry): void {
    this.sealed = true;
    for (const [key, list] of this.byKind) {
      if (schemas && this.declared.has(key)) this.defaultParams(list, schemas);
      list.sort((a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      Object.freeze(list);
    }
  }

  private defaultParams(list: ParamObject[], schemas: SchemaRegistry): void {
    for (let i = 0; i < list.length; i++) {
      const value = list[i].value;
      const apiVersion = getOwn(value, 'apiVersion');
      const kind = getOwn(value, 'kind');
      if (typeof apiVersion !== 'string' || typeof kind !== 'string') continue;
      const defaults = schemas.lookup(apiVersion, kind)?.defaults;
      if (defaults) list[i] = { ...list[i], value: applyCrdDefaults(defaults, value, undefined) };
    }
  }

  get size(): number {
    return this.count;
  }

  get namespaceCount(): number {
    return this.namespaces.size;
  }

  namespace(name: string): JsonObject | undefined {
    return this.namespaces.get(name);
  }

  /** One object as written in the sources (with apiVersion/kind), e.g. a ConfigMap for Kyverno context. */
  get(group: string, kind: string, namespace: string, name: string): JsonObject | undefined {
    return this.documents.get(documentKey(group, kind, namespace, name));
  }

  /**
   * `version` given: undefined when a CRD of the set declares the kind but does not serve that version, as
   * kube-apiserver's REST mapper knows only served versions. Built-in kinds are not checked by version.
   */
  scopeOf(group: string, kind: string, version?: string): Scope | undefined {
    const key = kindKey(group, kind);
    if (version !== undefined && this.served.get(key)?.has(version) === false) return undefined;
    const declared = this.declared.get(key) ?? builtinScope(group, kind);
    if (declared) return declared;
    // A kind no CRD declares but that has objects in the sources: namespaced if its objects are.
    const list = this.byKind.get(key);
    if (!list || list.length === 0) return undefined;
    return list.some((p) => p.namespace !== '') ? 'Namespaced' : 'Cluster';
  }

  objects(group: string, kind: string, namespace: string | undefined, version?: string): readonly ParamObject[] {
    const key = kindKey(group, kind);
    let list: readonly ParamObject[] = this.byKind.get(key) ?? [];
    if (version !== undefined && list.length > 0 && this.sealed) list = this.atVersion(key, group, version, list);
    return namespace === undefined ? list : list.filter((p) => p.namespace === namespace);
  }

  /**
   * `list` as served at `version`: kube-apiserver lists the param kind at the paramKind's version and the
   * CRD handler converts each object to it, setting its apiVersion (apiextensions-apiserver
   * conversion/nop_converter.go; a conversion webhook's answer must carry it too). Built-in kinds' views
   * have no apiVersion and stay. Made once per kind and version; the list itself when nothing changes.
   */
  private atVersion(key: string, group: string, version: string, list: readonly ParamObject[]): readonly ParamObject[] {
    let versions = this.byKindVersion.get(key);
    if (!versions) this.byKindVersion.set(key, (versions = new Map()));
    let out = versions.get(version);
    if (out === undefined) {
      const apiVersion = group === '' ? version : `${group}/${version}`;
      let copy: ParamObject[] | undefined;
      for (let i = 0; i < list.length; i++) {
        const value = list[i].value;
        const written = getOwn(value, 'apiVersion');
        if (written === undefined || written === apiVersion) continue;
        copy ??= list.slice();
        const served = shallowCopyWithMarks(value);
        setOwn(served, 'apiVersion', apiVersion);
        copy[i] = { ...list[i], value: served };
      }
      out = copy ? Object.freeze(copy) : list;
      versions.set(version, out);
    }
    return out;
  }
}

/** The kind a CustomResourceDefinition declares, or undefined when the document lacks it. */
export function crdKind(doc: JsonObject): DeclaredKind | undefined {
  const spec = getOwn(doc, 'spec');
  if (!isJsonObject(spec)) return undefined;
  const group = getOwn(spec, 'group');
  const names = getOwn(spec, 'names');
  const scope = getOwn(spec, 'scope');
  const kind = isJsonObject(names) ? getOwn(names, 'kind') : undefined;
  const plural = isJsonObject(names) ? getOwn(names, 'plural') : undefined;
  if (typeof group !== 'string' || typeof kind !== 'string') return undefined;
  const declared: DeclaredKind = { group, kind, scope: scope === 'Cluster' ? 'Cluster' : 'Namespaced', served: servedVersions(spec) };
  if (typeof plural === 'string' && plural !== '') declared.plural = plural;
  return declared;
}

/** The names of the versions a CRD's spec serves. */
function servedVersions(spec: JsonObject): string[] {
  const versions = getOwn(spec, 'versions');
  const out: string[] = [];
  if (!Array.isArray(versions)) return out;
  for (const v of versions) {
    if (!isJsonObject(v) || getOwn(v, 'served') !== true) continue;
    const name = getOwn(v, 'name');
    if (typeof name === 'string') out.push(name);
  }
  return out;
}
