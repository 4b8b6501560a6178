import { exactInteger, isFloatLiteral, isJsonObject, isOwnRead, setOwn, shallowCopyWithMarks, sliceArrayWithMarks, unmarkFloatLiteral, type JsonObject, type JsonValue } from '../json/index.js';
import { formatRFC3339, tryParseRFC3339 } from '../go/index.js';
import { formatQuantity, tryParseQuantity } from '../k8s/index.js';
import { formatMicroTime, isMicroTime, parseMicroTime } from './micro-time.js';
import { canonicalGoBase64 } from './go-base64.js';
import { goIntType, goOmitEmpty, goZero } from './go-fields.js';
import { ItemPairing, unchanged } from './unchanged.js';
import { resolve, type Atom, type FieldDef, type ObjectType, type TypeRef } from './types.js';

/**
 * A built-in object as the next mutation sees it after kube-apiserver's round trip through the kind's Go
 * type. Between two mutations the MutatingAdmissionPolicy dispatcher decodes a JSON patch's result into
 * the Go type, or converts an ApplyConfiguration's result into it (mutating/dispatcher.go dispatchOne),
 * and the next mutation reads that typed object encoded again (its CEL `object`, the JSON its patch
 * applies to). A resource.Quantity is written back in canonical form: it keeps its text only when the
 * text is canonical already, so `"1000m"` is read back as `"1"`, `"0.5"` as `"500m"`, `"1024Mi"` as
 * `"1Gi"`, and a number `2` as the string `"2"`. A metav1.Time is written in UTC to the second
 * (`"2024-01-01T10:00:00.5+02:00"` as `"2024-01-01T08:00:00Z"`; the zero time as null), a MicroTime in
 * UTC with six fractional digits. An `omitempty` field left empty (`labels: {}`, `nodeName: ""`,
 * `hostNetwork: false`, `tolerations: []`, a null pointer) is left out, as the encoder leaves out an empty
 * Go value: the next JSON patch cannot add a key under it, and `has(object.metadata.labels)` is false. A
 * null in a field without `omitempty` reads as the Go zero value (`""` for a container's name). A struct
 * value (`{}`) is never left out, and a struct a mutation adds gets the fields Go always writes
 * (`resources: {}` in a new container). The Go facts of each field come from data/go-fields.ts.
 *
 * Only what differs from `base` (the object the mutation was given, already in that form) is walked;
 * the result shares every untouched subtree with `obj`, and is `obj` itself when nothing changes.
 */
export function goRoundTrip<T extends JsonValue>(type: ObjectType, obj: T, base: JsonValue | undefined): T {
  // A container is only ever replaced by a copy of itself.
  return walk(obj, type.root, base) as T;
}

/** `microTime`: the value is a metav1.MicroTime field's (micro-time.ts). */
function walk(v: JsonValue, ref: TypeRef, base: JsonValue | undefined, microTime = false): JsonValue {
  if (v === null || unchanged(v, base)) return v;
  const atom = resolve(ref);
  if (atom.scalar) {
    if (v === base) return v;
    if (atom.format === 'quantity') return canonicalQuantity(v);
    if (atom.format === 'date-time') return microTime ? canonicalMicroTime(v) : canonicalTime(v);
    return v;
  }
  if (atom.list) {
    if (!Array.isArray(v)) return v;
    const pairs = ItemPairing.of(base, v.length);
    let out: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      // A null item decodes to its Go type's zero value.
      const w = item === null ? nullAsGo(atom.list.elem) : walk(item, atom.list.elem, pairs?.baseFor(item, i));
      if (w === item) continue;
      out ??= sliceArrayWithMarks(v);
      out[i] = w;
    }
    return out ?? v;
  }
  if (atom.map && isJsonObject(v)) {
    const baseMap = isJsonObject(base) ? base : undefined;
    let out: Record<string, JsonValue> | undefined;
    for (const k in v) {
      const child = v[k];
      let childBase: JsonValue | undefined;
      if (baseMap !== undefined) {
        childBase = baseMap[k];
        // The base's own value (already in Go form) walks to itself: no type lookup, no call. A JSON
        // value never equals what an object inherits, so this needs no own-property test.
        if (child === childBase) continue;
        if (!isOwnRead(baseMap, k, childBase)) childBase = undefined;
      }
      const field = atom.map.fields?.get(k);
      const childType = field ? field.type : atom.map.elem;
      if (!childType) continue;
      // A struct field's Go type decides; a map value null is its type's zero value.
      const g = field?.go !== undefined ? goFieldValue(v, k, field.go, childType) : child === null && !field ? nullAsGo(childType) : child;
      if (g === OMITTED) {
        out ??= shallowCopyWithMarks(v);
        delete out[k];
        continue;
      }
      // A quantity written as an int64 past ±2^53 is read from its exact digits (src/json/exact-integers.ts).
      const exact = typeof g === 'number' && !Number.isSafeInteger(g) && g === child ? exactInteger(v, k) : undefined;
      const w = exact !== undefined && resolve(childType).format === 'quantity'
        ? canonicalQuantity(String(exact))
        : walk(g, childType, childBase, typeof g === 'string' && resolve(childType).format === 'date-time' && isMicroTime(atom.map.name, k));
      // An integral float literal (an apply configuration's CEL double) in a Go integer field or an
      // IntOrString is an integer once converted (IntOrString through its JSON: `80`, its int): written
      // without its fraction, read back as an int by the next mutation.
      const integral = typeof child === 'number' && integralFloat(v, k, child) && ((field?.go !== undefined && goIntType(field.go) !== undefined) || resolve(childType).format === 'int-or-string');
      if (w === child && !integral) continue;
      out ??= shallowCopyWithMarks(v);
      setOwn(out, k, w);
      if (integral) unmarkFloatLiteral(out, k);
    }
    // Fields Go always writes (no `omitempty`, or a struct value) that a new struct lacks or a mutation
    // removed: their zero value's encoding. Where the base lacked one too, it stays as the base has it.
    if (atom.map.fields !== undefined) {
      for (const [name, field] of alwaysWritten(atom)) {
        if (isOwnRead(v, name, v[name]) || (baseMap !== undefined && !isOwnRead(baseMap, name, baseMap[name]))) continue;
        out ??= shallowCopyWithMarks(v);
        setOwn(out, name, zeroEncoding(field) as JsonValue);
      }
    }
    return out ?? v;
  }
  return v;
}

const alwaysWrittenCache = new WeakMap<Atom, ReadonlyArray<readonly [string, FieldDef]>>();

/** The fields of a struct that encoding/json writes even when zero. */
function alwaysWritten(atom: Atom): ReadonlyArray<readonly [string, FieldDef]> {
  let list = alwaysWrittenCache.get(atom);
  if (list === undefined) {
    const fields: (readonly [string, FieldDef])[] = [];
    for (const entry of atom.map!.fields!) if (entry[1].go !== undefined && zeroEncoding(entry[1]) !== OMITTED) fields.push(entry);
    alwaysWrittenCache.set(atom, (list = fields));
  }
  return list;
}

/**
 * What encoding/json writes for a field holding its Go zero value, or OMITTED (`omitempty` on a value
 * that is empty). A struct value is written whatever its tag: Quantity as "0", IntOrString as 0, Time,
 * RawExtension and JSON as null, another struct as its own fields' zero encodings.
 */
function zeroEncoding(field: FieldDef): JsonValue | typeof OMITTED {
  const zero = goZero(field.go!);
  if (zero === 'struct') {
    const atom = resolve(field.type);
    if (atom.map?.fields !== undefined && atom.scalar === undefined) return zeroStruct(atom);
    return nullAsGo(field.type);
  }
  if (goOmitEmpty(field.go!)) return OMITTED;
  return zero === 'nil' ? null : zero.value;
}

const zeroStructCache = new WeakMap<Atom, JsonObject>();

/** A struct's zero value as encoding/json writes it (shared: documents are never modified in place). */
function zeroStruct(atom: Atom): JsonObject {
  let out = zeroStructCache.get(atom);
  if (out === undefined) {
    out = {};
    for (const [name, field] of alwaysWritten(atom)) setOwn(out, name, zeroEncoding(field) as JsonValue);
    zeroStructCache.set(atom, out);
  }
  return out;
}

const OMITTED = Symbol('omitted');

/**
 * The value of the field `obj[key]` after decoding into its Go field (`code`, go-fields.ts) and encoding
 * again, as far as the field's own kind decides it, or OMITTED. JSON null decodes to the Go zero value:
 * `""`, `false`, `0` for a value field, nil for a pointer, slice or map (encoded `null`); a struct value is
 * left as it is. An int32 takes the low 32 bits of an integer (runtime/converter.go converts an
 * ApplyConfiguration's int64 with reflect's Convert; a JSON patch's overflow was refused before). Then
 * `omitempty` leaves out false, 0, "", nil and a slice or map of length 0 (encoding/json isEmptyValue).
 * A `[]byte` is written back in canonical base64 (padded, no newlines, unused bits zero; go-base64.ts).
 */
function goFieldValue(obj: Record<string, JsonValue>, key: string, code: string, type: TypeRef): JsonValue | typeof OMITTED {
  let v = obj[key];
  if (v === null) {
    const zero = goZero(code);
    // A struct value: Quantity and IntOrString decode null to their zero ("0", 0); Time stays null.
    if (zero === 'struct') return nullAsGo(type);
    if (zero !== 'nil') v = zero.value;
  } else if (typeof v === 'number' && goIntType(code) === 'int32') {
    v = int32Of(obj, key, v);
  } else if (Array.isArray(v) && goIntType(code) === 'int32') {
    v = int32Items(v);
  } else if (typeof v === 'string' && (code === 'y' || code === 'Y')) {
    v = canonicalGoBase64(v);
  } else if ((code === 'n' || code === 'N') && isJsonObject(v)) {
    v = canonicalBase64Values(v);
  }
  return goOmitEmpty(code) && isGoEmpty(v, code) ? OMITTED : v;
}

/**
 * What a JSON null decodes to in a map value or list item of this schema type (a Go string, number,
 * bool, Quantity or IntOrString; their zero values), written again. Anything else stays null: a pointer,
 * slice, map, interface or Time is written null, a struct's zero value is not reproduced here.
 */
function nullAsGo(ref: TypeRef): JsonValue {
  const atom = resolve(ref);
  if (atom.list !== undefined || atom.map !== undefined) return null;
  switch (atom.scalar) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      // Quantity.UnmarshalJSON("null") is the zero Quantity, written "0"; IntOrString's is the int 0.
      return atom.format === 'quantity' ? '0' : atom.format === 'int-or-string' ? 0 : null;
  }
}

/**
 * encoding/json isEmptyValue on the JSON form of a field's value: a pointer only when nil (`{}`, `""` or
 * `false` behind it are values), a struct value never.
 */
function isGoEmpty(v: JsonValue, code: string): boolean {
  switch (code) {
    case 'p':
    case 'q':
    case 'r':
      return v === null;
    case 'v':
    case 'j':
      return false;
  }
  if (v === null || v === '' || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (!isJsonObject(v)) return false;
  for (const _ in v) return false;
  return true;
}

/** A map[string][]byte with each value's base64 in canonical form. */
function canonicalBase64Values(map: Record<string, JsonValue>): Record<string, JsonValue> {
  let out: Record<string, JsonValue> | undefined;
  for (const k in map) {
    const item = map[k];
    if (typeof item !== 'string') continue;
    const w = canonicalGoBase64(item);
    if (w === item) continue;
    out ??= shallowCopyWithMarks(map);
    setOwn(out, k, w);
  }
  return out ?? map;
}

/**
 * Whether `v` at `container[key]` is a float literal with an integral value in int64's range: what
 * runtime/converter.go fromUnstructured turns into a Go integer (reflect's Convert: `int64(f)`, then the
 * field's size). Past int64 the conversion is the platform's: such a value is left as it is.
 */
function integralFloat(container: object, key: string | number, v: number): boolean {
  return Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63 && isFloatLiteral(container, key);
}

/**
 * An integer converted to int32 (two's complement, low 32 bits), an integral float literal too (reflect
 * converts float64 to int64 first); past int64, a float literal is left alone.
 */
function int32Of(container: object, key: string | number, v: number): number {
  if (v >= -2147483648 && v <= 2147483647) return v;
  if (!Number.isInteger(v)) return v;
  if (isFloatLiteral(container, key)) return v >= -(2 ** 63) && v < 2 ** 63 ? Number(BigInt.asIntN(32, BigInt(v))) : v;
  const exact = exactInteger(container, key);
  return Number(BigInt.asIntN(32, exact ?? BigInt(v)));
}

/** The items of a []int32 as Go int32s (wrapped; integral float literals unmarked). */
function int32Items(list: JsonValue[]): JsonValue[] {
  let out: JsonValue[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (typeof item !== 'number') continue;
    const w = int32Of(list, i, item);
    const integral = integralFloat(list, i, item);
    if (w === item && !integral) continue;
    out ??= sliceArrayWithMarks(list);
    out[i] = w;
    if (integral) unmarkFloatLiteral(out, i);
  }
  return out ?? list;
}

/**
 * Quantity.UnmarshalJSON (the JSON text, quoted or not, trimmed) then MarshalJSON. A value that does not
 * parse stays: the strict decoding or conversion check before this has refused it already. (An int64
 * past ±2^53 comes here as its exact digits; a number past int64 is read from its double.)
 */
function canonicalQuantity(v: JsonValue): JsonValue {
  const text = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : undefined;
  const q = text === undefined ? undefined : tryParseQuantity(text);
  return q === undefined ? v : formatQuantity(q);
}

/**
 * metav1.Time.UnmarshalJSON (time.Parse(time.RFC3339)) then MarshalJSON (`t.UTC().Format(time.RFC3339)`,
 * null for the zero time). A text that does not parse stays (refused before this).
 */
function canonicalTime(v: JsonValue): JsonValue {
  if (typeof v !== 'string') return v;
  const t = tryParseRFC3339(v);
  if (t === undefined) return v;
  if (t.sec === ZERO_TIME_SEC && t.nsec === 0) return null;
  return formatRFC3339({ sec: t.sec, nsec: 0, offset: 0 });
}

/** MicroTime.UnmarshalJSON (time.RFC3339Micro) then MarshalJSON (UTC, six fractional digits; null for zero). */
function canonicalMicroTime(v: JsonValue): JsonValue {
  if (typeof v !== 'string') return v;
  const t = parseMicroTime(v);
  if (typeof t === 'string') return v;
  if (t.sec === ZERO_TIME_SEC && t.nsec === 0) return null;
  return formatMicroTime(t);
}

/** Go's zero time.Time, 0001-01-01T00:00:00Z, in seconds since the Unix epoch. */
const ZERO_TIME_SEC = -62135596800;

