import { copyNumberMark, hasNumberMarks, isJsonObject, setOwn, shallowCopyObject, sliceArray, type JsonValue } from '../json/index.js';
import { formatQuantity, tryParseQuantity } from '../k8s/index.js';
import { ItemPairing, unchanged } from './unchanged.js';
import { resolve, type ObjectType, type TypeRef } from './types.js';

/**
 * A built-in object as the next mutation sees it after kube-apiserver's round trip through the kind's Go
 * type. Between two mutations the MutatingAdmissionPolicy dispatcher decodes a JSON patch's result into
 * the Go type, or converts an ApplyConfiguration's result into it (mutating/dispatcher.go dispatchOne),
 * and the next mutation reads that typed object encoded again (its CEL `object`, the JSON its patch
 * applies to). A resource.Quantity is written back in canonical form: it keeps its text only when the
 * text is canonical already, so `"1000m"` is read back as `"1"`, `"0.5"` as `"500m"`, `"1024Mi"` as
 * `"1Gi"`, and a number `2` as the string `"2"`. A map field left empty or null (`labels: {}`) is left
 * out, as the encoder's `omitempty` leaves out an empty Go map: the next JSON patch cannot add a key under
 * it, and `has(object.metadata.labels)` is false. (Other empty values — `""`, `0`, `false`, `[]`, a null
 * struct — stay: whether the Go field is `omitempty` is not in the schema data.)
 *
 * Only what differs from `base` (the object the mutation was given, already in that form) is walked;
 * the result shares every untouched subtree with `obj`, and is `obj` itself when nothing changes.
 */
export function goRoundTrip<T extends JsonValue>(type: ObjectType, obj: T, base: JsonValue | undefined): T {
  // A container is only ever replaced by a copy of itself.
  return walk(obj, type.root, base) as T;
}

function walk(v: JsonValue, ref: TypeRef, base: JsonValue | undefined): JsonValue {
  if (v === null || unchanged(v, base)) return v;
  const atom = resolve(ref);
  if (atom.scalar) return atom.format === 'quantity' && v !== base ? canonicalQuantity(v) : v;
  if (atom.list) {
    if (!Array.isArray(v)) return v;
    const pairs = ItemPairing.of(base, v.length);
    let out: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      const w = walk(item, atom.list.elem, pairs?.baseFor(item, i));
      if (w === item) continue;
      out ??= copyArray(v);
      out[i] = w;
    }
    return out ?? v;
  }
  if (atom.map && isJsonObject(v)) {
    const baseMap = isJsonObject(base) ? base : undefined;
    let out: Record<string, JsonValue> | undefined;
    for (const k in v) {
      const field = atom.map.fields?.get(k);
      const childType = field ? field.type : atom.map.elem;
      if (!childType) continue;
      const child = v[k];
      const childBase = baseMap !== undefined && Object.hasOwn(baseMap, k) ? baseMap[k] : undefined;
      if (field && child !== childBase && isEmptyMap(child) && isPlainMap(childType)) {
        out ??= copyObject(v);
        delete out[k];
        continue;
      }
      const w = walk(child, childType, childBase);
      if (w === child) continue;
      out ??= copyObject(v);
      setOwn(out, k, w);
    }
    return out ?? v;
  }
  return v;
}

/** Null or `{}`: a Go map field's nil or empty value. */
function isEmptyMap(v: JsonValue): boolean {
  if (v === null) return true;
  if (!isJsonObject(v)) return false;
  for (const _ in v) return false;
  return true;
}

/**
 * A Go map (labels, annotations, nodeSelector, a ResourceList, ...), not a struct nor free-form JSON.
 * Every map field of the built-in types is `omitempty` (k8s.io/api, apimachinery's ObjectMeta and
 * LabelSelector, apiextensions' JSONSchemaProps), so the encoder leaves out an empty one.
 */
function isPlainMap(ref: TypeRef): boolean {
  const atom = resolve(ref);
  return atom.map !== undefined && atom.map.fields === undefined && atom.scalar === undefined;
}

/**
 * Quantity.UnmarshalJSON (the JSON text, quoted or not, trimmed) then MarshalJSON. A value that does not
 * parse stays: the strict decoding or conversion check before this has refused it already. (A number
 * past ±2^53 is read from its double here, not from its exact digits: such a quantity is left to chance.)
 */
function canonicalQuantity(v: JsonValue): JsonValue {
  const text = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : undefined;
  const q = text === undefined ? undefined : tryParseQuantity(text);
  return q === undefined ? v : formatQuantity(q);
}

/** Copies keep the literal forms of the numbers they hold (a `1.0`, an int64 past ±2^53). */
function copyObject(source: Record<string, JsonValue>): Record<string, JsonValue> {
  const copy = shallowCopyObject(source);
  if (hasNumberMarks(source)) for (const key in copy) if (typeof copy[key] === 'number') copyNumberMark(source, key, copy, key);
  return copy;
}

function copyArray(source: JsonValue[]): JsonValue[] {
  const copy = sliceArray(source);
  if (hasNumberMarks(source)) for (let i = 0; i < copy.length; i++) if (typeof copy[i] === 'number') copyNumberMark(source, i, copy, i);
  return copy;
}

