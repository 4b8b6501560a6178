import { isJsonObject, isOwnRead, type JsonValue } from '../json/index.js';
import { goLeaf, type GoLeaf } from './go-fields.js';
import { decodeGoBase64 } from './go-base64.js';
import { isMicroTime, microTimeError } from './micro-time.js';
import { customDecodeError } from './strict.js';
import { ItemPairing, unchanged } from './unchanged.js';
import { resolve, type ObjectType, type TypeRef } from './types.js';

/**
 * Why kube-apiserver could not convert an ApplyConfiguration's result back into its kind's Go type, or
 * undefined. After server-side apply, the MutatingAdmissionPolicy dispatcher converts the unstructured
 * result with the scheme (`ConvertToVersion` → apimachinery runtime/converter.go `fromUnstructured`);
 * its error is the mutation's, under the policy's failurePolicy:
 * `unable to convert unstructured object to /v1, Kind=Pod: cannot convert float64 to int`.
 *
 * Structured merge diff has already checked the shape (objects, lists, strings, booleans, numbers), and
 * the converter ignores fields the type lacks, so what is left are the values SMD takes and Go does not:
 * - a number with a fraction for an integer field (`cannot convert float64 to int32`); an integral one
 *   converts (an int32 keeps the low 32 bits: go-round-trip.ts);
 * - the Go types that decode themselves from JSON (Time, Quantity, IntOrString): their own errors, e.g.
 *   `parsing time "bad" as …`, the quantity regular expression, `json: cannot unmarshal bool into Go
 *   value of type int32`.
 * Go walks struct fields in their declared order and stops at the first error; this walk stops at the
 * first too, in the object's order. Only what differs from `checked` (a version known to convert, e.g.
 * the object the API server sent) is looked at (see unchanged.ts).
 */
export function fromUnstructuredError(type: ObjectType, obj: JsonValue, checked?: JsonValue): string | undefined {
  const err = walk(obj, type.root, checked);
  if (err === undefined) return undefined;
  return `unable to convert unstructured object to ${type.group}/${type.version}, Kind=${type.kind}: ${err}`;
}

/** `microTime`: the value is a metav1.MicroTime field's (micro-time.ts). */
/** `leaf`: the Go type of the values at this place when the schema does not say it (go-fields.ts). */
function walk(v: JsonValue, ref: TypeRef, base: JsonValue | undefined, microTime = false, leaf?: GoLeaf): string | undefined {
  if (v === null || unchanged(v, base)) return undefined;
  const atom = resolve(ref);
  if (atom.scalar) {
    // Free-form JSON (RawExtension, apiextensions JSON): anything converts.
    if (atom.scalar === 'untyped' && atom.list && atom.map) return undefined;
    if (microTime && atom.format === 'date-time' && typeof v === 'string') return microTimeError(v);
    return scalarError(atom.scalar, atom.format, v, leaf);
  }
  if (atom.list) {
    if (!Array.isArray(v)) return undefined;
    const pairs = ItemPairing.of(base, v.length);
    for (let i = 0; i < v.length; i++) {
      const err = walk(v[i], atom.list.elem, pairs?.baseFor(v[i], i), false, leaf);
      if (err !== undefined) return err;
    }
    return undefined;
  }
  if (atom.map && isJsonObject(v)) {
    const baseMap = isJsonObject(base) ? base : undefined;
    for (const k in v) {
      let childBase: JsonValue | undefined;
      if (baseMap !== undefined) {
        childBase = baseMap[k];
        // The base's own value at this place converted, as the same field's type: it converts again (a
        // scalar's conversion depends only on its type and value). Skipped before the type lookup, and
        // without an own-property test: a JSON value never equals what an object inherits.
        if (v[k] === childBase) continue;
        if (!isOwnRead(baseMap, k, childBase)) childBase = undefined;
      }
      const field = atom.map.fields?.get(k);
      const childType = field ? field.type : atom.map.elem;
      if (!childType) continue; // a field the type lacks: the converter drops it
      // A struct field's own Go type; a map's values share the map's.
      const childLeaf = field ? (field.go !== undefined ? goLeaf(field.go) : undefined) : leaf;
      const err = walk(v[k], childType, childBase, field !== undefined && typeof v[k] === 'string' && isMicroTime(atom.map.name, k), childLeaf);
      if (err !== undefined) return err;
    }
  }
  return undefined;
}

function scalarError(scalar: string, format: string | undefined, v: JsonValue, leaf: GoLeaf | undefined): string | undefined {
  switch (scalar) {
    case 'integer':
      return typeof v === 'number' && !Number.isInteger(v) ? `cannot convert float64 to ${leaf ?? 'int'}` : undefined;
    case 'string': {
      // sliceFromUnstructured: a string for a []byte goes through json.Marshal and json.Unmarshal.
      if (leaf !== 'bytes' || typeof v !== 'string' || v === '') return undefined;
      const d = decodeGoBase64(v);
      return d.ok ? undefined : `error decoding from json: ${d.message}`;
    }
    case 'boolean':
    case 'number':
      return undefined;
    default:
      // Converted through JSON (json.Marshal, then the type's UnmarshalJSON): a float literal's mark is
      // lost on the way, so an integral number is an integer again.
      return customDecodeError(format, v, undefined, undefined);
  }
}
