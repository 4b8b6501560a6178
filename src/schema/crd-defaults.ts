import { copyNumberMark, getOwn, isJsonObject, setOwn, shallowCopyWithMarks, sliceArrayWithMarks, type JsonObject, type JsonValue } from '../json/index.js';

/**
 * The `default`s of a CustomResourceDefinition's structural schema, and kube-apiserver's defaulting of a
 * custom resource with them (apiextensions-apiserver pkg/apiserver/schema/defaulting/algorithm.go
 * Default). The API server defaults a custom resource when it decodes one, and again after each
 * MutatingAdmissionPolicy mutation (mutating/dispatcher.go dispatchOne: the ObjectDefaulter of a custom
 * resource is the CRD handler's unstructuredDefaulter), so the next mutation reads the defaults of what
 * the last one added or removed.
 *
 * Only the parts of a schema that lead to a default are kept: a CRD without defaults has none, and its
 * objects are not walked.
 */
export interface CrdDefaults {
  /** The node's own `default` (absent: none, or `default: null`, which Go reads as no default). */
  readonly value?: JsonValue;
  /** The schema object holding `value` as its `default` (where a number's literal form is marked). */
  readonly holder?: JsonObject;
  /** `nullable: true`: a null stays null; otherwise a null where a default exists is replaced by it. */
  readonly nullable: boolean;
  readonly properties?: ReadonlyMap<string, CrdDefaults>;
  readonly additionalProperties?: CrdDefaults;
  readonly items?: CrdDefaults;
}

/** The defaults below a schema node (an openAPIV3Schema), or undefined when it has none. */
export function crdDefaults(props: JsonValue): CrdDefaults | undefined {
  if (!isJsonObject(props)) return undefined;
  const def = getOwn(props, 'default');
  const value = def === undefined || def === null ? undefined : def;
  let properties: Map<string, CrdDefaults> | undefined;
  const declared = getOwn(props, 'properties');
  if (isJsonObject(declared)) {
    for (const name of Object.keys(declared)) {
      const child = crdDefaults(declared[name]);
      if (child) (properties ??= new Map()).set(name, child);
    }
  }
  const additionalProperties = crdDefaults(getOwn(props, 'additionalProperties') as JsonValue);
  const items = crdDefaults(getOwn(props, 'items') as JsonValue);
  if (value === undefined && !properties && !additionalProperties && !items) return undefined;
  const out: { -readonly [K in keyof CrdDefaults]: CrdDefaults[K] } = { nullable: getOwn(props, 'nullable') === true };
  if (value !== undefined) {
    out.value = value;
    out.holder = props;
  }
  if (properties) out.properties = properties;
  if (additionalProperties) out.additionalProperties = additionalProperties;
  if (items) out.items = items;
  return out;
}

/** A null where the node has a default and is not nullable: Go's isNonNullableNull (and the node's default is set). */
function replacesNull(v: JsonValue | undefined, node: CrdDefaults): boolean {
  return v === null && !node.nullable && node.value !== undefined;
}

/**
 * `obj` defaulted as the API server defaults it (never modified: changed containers are copies). `base`:
 * the object it was made from by copy-on-write edits, already defaulted (the API server's, or an earlier
 * result of this function); subtrees identical to the base's at the same place are not walked again.
 * Default values are shared, not copied: documents are never modified in place.
 */
export function applyCrdDefaults<T extends JsonValue>(defaults: CrdDefaults, obj: T, base: JsonValue | undefined): T {
  return walk(obj, defaults, base) as T;
}

function walk(v: JsonValue, node: CrdDefaults, base: JsonValue | undefined): JsonValue {
  if (v === base) return v;
  if (Array.isArray(v)) {
    const items = node.items;
    if (!items) return v;
    const b = Array.isArray(base) ? base : undefined;
    let out: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      const defaulted = replacesNull(item, items);
      const w = walk(defaulted ? items.value! : item, items, b?.[i]);
      if (w === item) continue;
      out ??= sliceArrayWithMarks(v);
      out[i] = w;
      if (defaulted && typeof w === 'number') copyNumberMark(items.holder!, 'default', out, i);
    }
    return out ?? v;
  }
  if (!isJsonObject(v)) return v;
  const b = isJsonObject(base) ? base : undefined;
  let out: JsonObject | undefined;
  const properties = node.properties;
  // The properties' own defaults first, for members absent or null (a default may itself get defaults below).
  if (properties) {
    for (const [name, prop] of properties) {
      if (prop.value === undefined) continue;
      const cur = getOwn(v, name);
      if (cur === undefined || replacesNull(cur, prop)) {
        out ??= shallowCopyWithMarks(v);
        setDefault(out, name, prop);
      }
    }
  }
  const src = out ?? v;
  for (const key of Object.keys(src)) {
    const child = src[key];
    const prop = properties?.get(key);
    const childNode = prop ?? node.additionalProperties;
    if (!childNode) continue;
    // A declared property's null was defaulted above; a null under additionalProperties is here.
    const defaulted = !prop && replacesNull(child, childNode);
    const w = walk(defaulted ? childNode.value! : child, childNode, b === undefined ? undefined : getOwn(b, key));
    if (w === child) continue;
    out ??= shallowCopyWithMarks(v);
    if (defaulted && w === childNode.value) setDefault(out, key, childNode);
    else setOwn(out, key, w);
  }
  return out ?? v;
}

/** `obj[key]` = the node's default, with the literal form its number has in the schema (`2.0` a double). */
function setDefault(obj: JsonObject, key: string, node: CrdDefaults): void {
  setOwn(obj, key, node.value!);
  if (typeof node.value === 'number') copyNumberMark(node.holder!, 'default', obj, key);
}
