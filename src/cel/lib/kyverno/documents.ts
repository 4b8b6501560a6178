import { checkBuiltSize } from '../../engine/bounds.js';
import { mapGet, mapKeys } from '../../engine/runtime.js';
import { formatTimestamp } from '../../engine/time.js';
import { CelOptional, CelUint, Duration, isMapValue, StructValue, Timestamp, type CelMapValue } from '../../engine/values.js';
import { compareStrings, goJsonNumber, jsonString } from '../../../go/index.js';
import type { JsonValue } from '../../../json/index.js';
import { celError } from '../errors.js';
import { goStringArgument } from './go-string.js';
import { ImageReference } from './image.js';

/**
 * Documents between CEL and text as Kyverno's json/yaml libraries pass them: decoded into Go's `any`
 * (every number a float64, so a CEL double), encoded as Go's encoding/json writes (keys sorted,
 * `<` `>` `&` escaped).
 */

/**
 * The maps that hold a Go map[string]any in Kyverno (a decoded document, listObjToMap's result), as the
 * review's JSON objects do: cel-go hands such a map to Go as it is. A map CEL builds (a literal, a
 * comprehension) holds CEL values, which cel-go converts one by one (see marshalCel).
 */
const GO_MAPS = new WeakSet<Map<unknown, unknown>>();

/** Marks `m` as a Go map[string]any (GO_MAPS). */
export function goMap<M extends Map<unknown, unknown>>(m: M): M {
  GO_MAPS.add(m);
  return m;
}

/** A decoded document as a CEL value: maps as Map, numbers as doubles (Go decodes into float64). */
export function documentToCel(v: JsonValue): unknown {
  if (Array.isArray(v)) return v.map(documentToCel);
  if (v !== null && typeof v === 'object') {
    const m = goMap(new Map<string, unknown>());
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

/**
 * Go's json.Marshal of a CEL value, as Kyverno's json.marshal hands it over (kyverno/sdk json impl.go
 * toJsonNative: a map as ConvertToNative[map[string]any], a list as [[]any], anything else as
 * val.Value()); the text is checked against the review's size bound as it grows.
 *
 * cel-go (v0.27 on; Kyverno pins v0.31) converts what a CEL-built map holds, and what a CEL-built list
 * holds, to Go's `any` one value at a time (common/types map.go, list.go ConvertToNative), and a map
 * then becomes a map[any]any, which encoding/json refuses: a map inside a map literal, or a map literal
 * inside anything, fails 'json: unsupported type: map[interface {}]interface {}'. A CEL null becomes
 * structpb.NullValue there (and at the top, Null.Value()), an int32 enum that encoding/json writes as 0;
 * an optional its value (none: 'optional.none() dereference'). What a Go map[string]any holds (the
 * review's objects, decoded documents) is handed over untouched. A list built by CEL cannot be told
 * from a list of the review here, so what a list holds is read as untouched, but for CEL-built maps.
 * `converted`: v is a value of a CEL-built map, converted to `any`.
 */
export function marshalCel(v: unknown, depth = 0, converted = false): string {
  if (depth > 1000) throw celError('json: value nested too deeply');
  if (v === null || v === undefined) return depth === 0 || converted ? '0' : 'null';
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
  if (v instanceof CelOptional) {
    // At the top, Kyverno marshals val.Value(): nil for optional.none(), a scalar's Go value for one.
    if (depth === 0 && (!v.hasValue() || !isContainer(v.value()))) return v.hasValue() ? marshalCel(v.value(), 0) : 'null';
    // Inside, cel-go converts an optional to its value (Optional.ConvertToNative).
    if (depth > 0) {
      if (!v.hasValue()) throw celError('optional.none() dereference');
      return marshalCel(v.value(), depth, true);
    }
  }
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
    const celBuilt = v instanceof Map && !GO_MAPS.has(v);
    if (depth > 0 && (converted || celBuilt)) throw celError('json: unsupported type: map[interface {}]interface {}');
    const m = v as CelMapValue;
    // A CEL-built map's keys are converted to Go strings (cel-go's conversion errors by kind).
    const keys = mapKeys(m).map((k) => (typeof k === 'string' ? k : goStringArgument(k)));
    keys.sort(compareStrings);
    const parts: string[] = [];
    let size = 2;
    for (const k of keys) {
      const t = `${jsonString(k)}:${marshalCel(mapGet(m, k), depth + 1, celBuilt)}`;
      size += t.length + 1;
      checkBuiltSize(size, 'the result of json.marshal');
      parts.push(t);
    }
    return `{${parts.join(',')}}`;
  }
  throw celError(`json: unsupported type: ${(v as { celTypeName?: string }).celTypeName ?? typeof v}`);
}
