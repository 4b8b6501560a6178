import { checkBuiltSize } from '../../engine/bounds.js';
import { mapGet, mapKeys } from '../../engine/runtime.js';
import { formatTimestamp } from '../../engine/time.js';
import { CelOptional, CelUint, Duration, isMapValue, StructValue, Timestamp, type CelMapValue } from '../../engine/values.js';
import { compareStrings, goJsonNumber, jsonString } from '../../../go/index.js';
import type { JsonValue } from '../../../json/index.js';
import { celError } from '../errors.js';
import { ImageReference } from './image.js';

/**
 * Documents between CEL and text as Kyverno's json/yaml libraries pass them: decoded into Go's `any`
 * (every number a float64, so a CEL double), encoded as Go's encoding/json writes (keys sorted,
 * `<` `>` `&` escaped).
 */

/** A decoded document as a CEL value: maps as Map, numbers as doubles (Go decodes into float64). */
export function documentToCel(v: JsonValue): unknown {
  if (Array.isArray(v)) return v.map(documentToCel);
  if (v !== null && typeof v === 'object') {
    const m = new Map<string, unknown>();
    for (const k of Object.keys(v)) m.set(k, documentToCel(v[k]));
    return m;
  }
  return v;
}

const isContainer = (v: unknown) => Array.isArray(v) || isMapValue(v);

function goFloat(x: number): string {
  // Go's UnsupportedValueError prints the value with strconv.FormatFloat: +Inf, -Inf, NaN.
  if (!Number.isFinite(x)) throw celError(`json: unsupported value: ${Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf'}`);
  return goJsonNumber(x);
}

/**
 * The Go structs (cel-go ext.NativeTypes) of Kyverno's CEL environment, as encoding/json writes them, in
 * Go's field order: each field's JSON name, and what is written when it holds Go's zero value (which a
 * native StructValue does not hold): nothing for an `omitempty` one, else the zero's JSON (a nil slice is
 * null). kyverno/sdk user.ServiceAccount: `json:"name,omitempty"`, `json:"namespace,omitempty"`;
 * kyverno libs.Exception: no json tags (its `cel` tags name the CEL fields).
 */
interface GoJsonField {
  field: string;
  json: string;
  zero?: string;
}
const GO_JSON_FIELDS: Readonly<Record<string, readonly GoJsonField[]>> = {
  'user.ServiceAccount': [
    { field: 'Name', json: 'name' },
    { field: 'Namespace', json: 'namespace' },
  ],
  'libs.Exception': [
    { field: 'allowedImages', json: 'AllowedImages', zero: 'null' },
    { field: 'allowedValues', json: 'AllowedValues', zero: 'null' },
  ],
};

/**
 * A native struct: at the top Go's json.Marshal of the struct; inside a list or map cel-go cannot
 * convert it to Go's `any` first (nativeObj.ConvertToNative), so json.marshal fails.
 */
function marshalStruct(v: StructValue, depth: number): string {
  const fields = GO_JSON_FIELDS[v.typeName];
  if (!fields || depth > 0) throw celError(`type conversion error from '${v.typeName}' to 'interface {}'`);
  const parts: string[] = [];
  for (const { field, json, zero } of fields) {
    if (v.fields.has(field)) parts.push(`${jsonString(json)}:${marshalCel(v.fields.get(field), 1)}`);
    else if (zero !== undefined) parts.push(`${jsonString(json)}:${zero}`);
  }
  return `{${parts.join(',')}}`;
}

/** Go's json.Marshal of a CEL value; the text is checked against the review's size bound as it grows. */
export function marshalCel(v: unknown, depth = 0): string {
  if (depth > 1000) throw celError('json: value nested too deeply');
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof CelUint) return v.value.toString();
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'string') return jsonString(v);
  // cel-go hands Go a timestamp as time.Time (RFC 3339 with nanoseconds) and a duration as
  // time.Duration (an int64 of nanoseconds).
  if (v instanceof Timestamp) return jsonString(formatTimestamp(v));
  if (v instanceof Duration) return v.ns.toString();
  // An image() value reaches Go as a name.Tag or name.Digest, whose MarshalJSON writes the reference as
  // written (go-containerregistry pkg/name).
  if (v instanceof ImageReference) return jsonString(v.toString());
  if (v instanceof StructValue && v.zeroOf) return marshalStruct(v, depth);
  // At the top, Kyverno marshals val.Value(): nil for optional.none(), a scalar's Go value for one.
  if (v instanceof CelOptional && depth === 0 && (!v.hasValue() || !isContainer(v.value()))) return v.hasValue() ? marshalCel(v.value(), 1) : 'null';
  if (v instanceof Uint8Array) {
    let s = '';
    for (const b of v) s += String.fromCharCode(b);
    return `"${btoa(s)}"`;
  }
  if (Array.isArray(v)) {
    const parts: string[] = [];
    let size = 2;
    for (const item of v) {
      const t = marshalCel(item, depth + 1);
      size += t.length + 1;
      checkBuiltSize(size, 'the result of json.marshal');
      parts.push(t);
    }
    return `[${parts.join(',')}]`;
  }
  if (isMapValue(v)) {
    const m = v as CelMapValue;
    const keys = mapKeys(m).map((k) => {
      if (typeof k !== 'string') throw celError(`json: unsupported type: map with ${typeof k === 'bigint' ? 'int' : typeof k} keys`);
      return k;
    });
    keys.sort(compareStrings);
    const parts: string[] = [];
    let size = 2;
    for (const k of keys) {
      const t = `${jsonString(k)}:${marshalCel(mapGet(m, k), depth + 1)}`;
      size += t.length + 1;
      checkBuiltSize(size, 'the result of json.marshal');
      parts.push(t);
    }
    return `{${parts.join(',')}}`;
  }
  throw celError(`json: unsupported type: ${(v as { celTypeName?: string }).celTypeName ?? typeof v}`);
}
