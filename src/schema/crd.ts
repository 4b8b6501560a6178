import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/index.js';
import type { BuiltinTypes } from './builtin.js';
import { crdDefaults } from './crd-defaults.js';
import { DEDUCED, type Atom, type FieldDef, type ListType, type ObjectType, type TypeRef } from './types.js';

/** A CustomResourceDefinition that cannot be turned into a schema. */
export class CrdError extends Error {
  override name = 'CrdError';
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * A value with no `type` (x-kubernetes-int-or-string, or a schema that only says anyOf/oneOf): kube-openapi
 * makes it an untyped scalar, an atomic list or a map of deduced values, whichever the value is.
 */
const UNTYPED_NO_TYPE: Atom = { scalar: 'untyped', list: { elem: DEDUCED, listType: 'atomic', keys: [] }, map: { elem: DEDUCED, atomic: false } };
const INT_OR_STRING: Atom = { ...UNTYPED_NO_TYPE, format: 'int-or-string' };

/**
 * The schemas of every served version of an apiextensions.k8s.io/v1 CustomResourceDefinition, built the way
 * kube-apiserver builds its SSA type converter for CRDs (kube-openapi schemaconv, without preserving unknown
 * fields unless the schema says `x-kubernetes-preserve-unknown-fields`). Throws CrdError on a malformed CRD.
 */
export function convertCrd(crd: JsonValue, builtins: BuiltinTypes): ObjectType[] {
  if (!isJsonObject(crd)) throw new CrdError('CustomResourceDefinition: expected an object');
  const meta = getOwn(crd, 'metadata');
  const crdName = isJsonObject(meta) && typeof getOwn(meta, 'name') === 'string' ? (getOwn(meta, 'name') as string) : '';
  const fail = (path: string, message: string): never => {
    throw new CrdError(`CustomResourceDefinition ${JSON.stringify(crdName)}: ${path ? path + ': ' : ''}${message}`);
  };
  const apiVersion = getOwn(crd, 'apiVersion');
  if (apiVersion !== 'apiextensions.k8s.io/v1') {
    fail('apiVersion', `unsupported value ${JSON.stringify(apiVersion ?? null)} (only apiextensions.k8s.io/v1 is served by Kubernetes 1.22+)`);
  }
  if (getOwn(crd, 'kind') !== 'CustomResourceDefinition') fail('kind', 'must be CustomResourceDefinition');
  const spec = getOwn(crd, 'spec');
  if (!isJsonObject(spec)) return fail('spec', 'required object');
  const group = getOwn(spec, 'group');
  if (typeof group !== 'string' || group === '') fail('spec.group', 'required non-empty string');
  const names = getOwn(spec, 'names');
  const kind = isJsonObject(names) ? getOwn(names, 'kind') : undefined;
  if (typeof kind !== 'string' || kind === '') fail('spec.names.kind', 'required non-empty string');
  if (getOwn(spec, 'preserveUnknownFields') === true) fail('spec.preserveUnknownFields', 'must be false in apiextensions.k8s.io/v1');
  const versions = getOwn(spec, 'versions');
  if (!Array.isArray(versions) || versions.length === 0) return fail('spec.versions', 'required non-empty list');

  const converter = new PropsConverter(builtins, fail);
  const seen = new Set<string>();
  const out: ObjectType[] = [];
  versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    if (!isJsonObject(v)) return fail(at, 'expected an object');
    const name = getOwn(v, 'name');
    if (typeof name !== 'string' || name === '') return fail(`${at}.name`, 'required non-empty string');
    if (seen.has(name)) fail(`${at}.name`, `duplicate version ${JSON.stringify(name)}`);
    seen.add(name);
    const served = getOwn(v, 'served');
    if (typeof served !== 'boolean') fail(`${at}.served`, 'required boolean');
    const schema = getOwn(v, 'schema');
    const props = isJsonObject(schema) ? getOwn(schema, 'openAPIV3Schema') : undefined;
    if (!isJsonObject(props)) return fail(`${at}.schema.openAPIV3Schema`, 'required object');
    const root = converter.root(props, `${at}.schema.openAPIV3Schema`);
    if (!served) return;
    const defaults = crdDefaults(props);
    out.push({ group: group as string, version: name, kind: kind as string, source: 'crd', name: crdName, root, ...(defaults ? { defaults } : {}) });
  });
  return out;
}

type Fail = (path: string, message: string) => never;

class PropsConverter {
  constructor(
    private readonly builtins: BuiltinTypes,
    private readonly fail: Fail,
  ) {}

  /** The object root: apiVersion, kind and metadata are always there (the apiserver's OpenAPI builder adds them). */
  root(props: JsonObject, path: string): TypeRef {
    if (getOwn(props, 'type') !== 'object') this.fail(`${path}.type`, 'the root schema must be of type object');
    const preserve = getOwn(props, 'x-kubernetes-preserve-unknown-fields') === true;
    return this.object(props, path, preserve, true);
  }

  private withResourceFields(fields: ReadonlyMap<string, FieldDef>): Map<string, FieldDef> {
    const out = new Map(fields);
    if (!out.has('apiVersion')) out.set('apiVersion', { type: { scalar: 'string' } });
    if (!out.has('kind')) out.set('kind', { type: { scalar: 'string' } });
    out.set('metadata', { type: this.builtins.ref(OBJECT_META) });
    return out;
  }

  /**
   * `inherited`: an ancestor says x-kubernetes-preserve-unknown-fields. kube-openapi's schemaconv keeps that
   * flag for every descendant (its converter is copied to each child), so an object with properties below
   * such a node also takes unknown fields as deduced values, though the pruning of the apiserver would not.
   */
  convert(props: JsonValue, path: string, inherited: boolean): Atom {
    if (!isJsonObject(props)) return this.fail(path, 'expected a schema object');
    const preserve = inherited || getOwn(props, 'x-kubernetes-preserve-unknown-fields') === true;
    if (getOwn(props, 'x-kubernetes-int-or-string') === true) return INT_OR_STRING;
    const type = getOwn(props, 'type');
    switch (type) {
      case 'object':
        return this.object(props, path, preserve);
      case 'array':
        return this.array(props, path, preserve);
      case 'string': {
        const format = getOwn(props, 'format');
        // kube-openapi: a string with a format other than "" or "byte" is an untyped scalar.
        if (format === undefined || format === '' || format === 'byte') return { scalar: 'string' };
        return typeof format === 'string' ? { scalar: 'untyped', format } : this.fail(`${path}.format`, 'expected a string');
      }
      case 'integer':
        return { scalar: 'integer' };
      case 'number':
        return { scalar: 'number' };
      case 'boolean':
        return { scalar: 'boolean' };
      case undefined:
        return preserve ? DEDUCED : UNTYPED_NO_TYPE;
      default:
        return this.fail(`${path}.type`, `unsupported type ${JSON.stringify(type)}`);
    }
  }

  /** `resource`: the object has apiVersion, kind and metadata (the root, an embedded resource). */
  private object(props: JsonObject, path: string, preserve: boolean, resource = false): Atom {
    const mapType = getOwn(props, 'x-kubernetes-map-type');
    if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
      this.fail(`${path}.x-kubernetes-map-type`, `unsupported value ${JSON.stringify(mapType)} (atomic or granular)`);
    }
    const atomic = mapType === 'atomic';
    const properties = getOwn(props, 'properties');
    const additional = getOwn(props, 'additionalProperties');
    const withResource = resource || getOwn(props, 'x-kubernetes-embedded-resource') === true;
    if (properties !== undefined && !isJsonObject(properties)) this.fail(`${path}.properties`, 'expected an object');
    if (additional !== undefined && typeof additional !== 'boolean' && !isJsonObject(additional)) {
      this.fail(`${path}.additionalProperties`, 'expected a schema object or boolean');
    }
    const hasProperties = isJsonObject(properties) && Object.keys(properties).length > 0;
    if (hasProperties && isJsonObject(additional)) {
      this.fail(path, 'properties and additionalProperties are mutually exclusive in a structural schema');
    }
    // The keys no property declares (kube-openapi parseObject's element type): additionalProperties' schema;
    // deduced values for `additionalProperties: true`, below preserve-unknown-fields, or for an object
    // without properties (the root and an embedded resource always have apiVersion, kind and metadata,
    // which the apiserver's OpenAPI builder adds); none for `false` or for a struct.
    const struct = hasProperties || withResource;
    const elem = isJsonObject(additional)
      ? this.convert(additional, `${path}.additionalProperties`, preserve)
      : additional === true || (additional === undefined && (preserve || !struct))
        ? DEDUCED
        : undefined;
    if (!struct) return { map: elem ? { elem, atomic } : { atomic } };
    let fields = new Map<string, FieldDef>();
    if (isJsonObject(properties)) {
      for (const name of Object.keys(properties)) {
        const child = getOwn(properties, name) as JsonValue;
        fields.set(name, this.field(child, `${path}.properties.${name}`, preserve));
      }
    }
    if (withResource) fields = this.withResourceFields(fields);
    return { map: elem ? { fields, elem, atomic } : { fields, atomic } };
  }

  private field(props: JsonValue, path: string, inherited: boolean): FieldDef {
    const type = this.convert(props, path, inherited);
    const def = isJsonObject(props) ? getOwn(props, 'default') : undefined;
    // SMD uses a key field's default only when there is one: `default: null` (a nullable field) is Go's nil,
    // no default (typed/helpers.go keyedAssociativeListItemToPathElement: `def != nil`).
    return def !== undefined && def !== null && typeof def !== 'object' ? { type, default: def } : { type };
  }

  private array(props: JsonObject, path: string, inherited: boolean): Atom {
    const items = getOwn(props, 'items');
    if (!isJsonObject(items)) return this.fail(`${path}.items`, 'required schema object for type array');
    const lt = getOwn(props, 'x-kubernetes-list-type');
    if (lt !== undefined && lt !== 'atomic' && lt !== 'set' && lt !== 'map') {
      this.fail(`${path}.x-kubernetes-list-type`, `unsupported value ${JSON.stringify(lt)} (atomic, set or map)`);
    }
    const listType: ListType = (lt as ListType | undefined) ?? 'atomic';
    const rawKeys = getOwn(props, 'x-kubernetes-list-map-keys');
    let keys: string[] = [];
    if (listType === 'map') {
      if (!Array.isArray(rawKeys) || rawKeys.length === 0 || !rawKeys.every((k) => typeof k === 'string' && k !== '')) {
        this.fail(`${path}.x-kubernetes-list-map-keys`, 'required non-empty list of field names for x-kubernetes-list-type map');
      }
      keys = rawKeys as string[];
      const itemProps = getOwn(items, 'properties');
      if (getOwn(items, 'type') !== 'object' || !isJsonObject(itemProps)) {
        this.fail(`${path}.items`, 'x-kubernetes-list-type map needs items of type object with properties');
      }
      for (const key of keys) {
        if (getOwn(itemProps as JsonObject, key) === undefined) {
          this.fail(`${path}.x-kubernetes-list-map-keys`, `key ${JSON.stringify(key)} is not a property of the items`);
        }
      }
      if (new Set(keys).size !== keys.length) this.fail(`${path}.x-kubernetes-list-map-keys`, 'duplicate keys');
    } else if (rawKeys !== undefined) {
      this.fail(`${path}.x-kubernetes-list-map-keys`, 'only allowed with x-kubernetes-list-type map');
    }
    const elem = this.convert(items, `${path}.items`, inherited);
    return { list: { elem, listType, keys } };
  }
}
