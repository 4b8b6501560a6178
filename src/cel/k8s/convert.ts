/**
 * CEL results back to JSON (spec map.md §8.2, §9.2, §9.3): JSON Patch operations from a
 * `list(JSONPatch)`, apply configurations from an `Object{...}`, with the type-name check and the
 * non-string map key error. Integral doubles of an apply configuration are marked as float literals
 * (src/json) so a patch keeps `1.0` a double; a JSON patch value's numbers are written as kube-apiserver
 * writes them (protojson from structpb: float64 numbers, integral ones as integers). An apply
 * configuration's literals are read as their Go map too: a null, timestamp, duration or bytes value there
 * stays a GoNative value (src/go/native.ts) that the schema check refuses in structured-merge-diff's words.
 */
import { OutcomeError, ReviewAborted, type ReviewGuard } from '../../guard/index.js';
import { GO_NULL_VALUE, GoNative, goBytes, goDuration, goTime } from '../../go/index.js';
import { formatFloatG, strconvQuote } from '../../go/index.js';
import { markExactInteger, markFloatLiteral, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { mapGet, mapKeys, typeNameOf } from '../engine/runtime.js';
import { formatDuration, formatTimestamp } from '../engine/time.js';
import { CelOptional, CelUint, Duration, StructValue, Timestamp, TypeValue, isPlainObject, type CelMapValue, type CelValue } from '../engine/values.js';
import { JSONPATCH_TYPE, OBJECT_TYPE } from './types.js';

/**
 * What made a conversion fail, for the callers that report it in kube-apiserver's words: a map key that
 * is not a string (`fields`: the Object literal fields from the outermost literal down to the map, empty
 * when the map is not a field of a literal), or a value JSON cannot hold.
 */
export type ConversionFailure =
  | { kind: 'mapKey'; key: unknown; fields: string[] }
  | { kind: 'value'; value: unknown };

export class ConversionError extends OutcomeError {
  override name = 'ConversionError';
  constructor(
    message: string,
    readonly failure?: ConversionFailure,
  ) {
    super(message);
  }
}

/** Bytes as standard base64, as Go's encoding/json writes a []byte. */
export function base64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/**
 * What the conversion in progress may still write (string lengths and nodes), and the guard whose bound
 * that is. CEL values share subtrees, so a small value can stand for an exponentially larger JSON tree:
 * conversion stops at the bound instead of building it. Conversion is synchronous: one at a time.
 */
let allowance = Infinity;
let allowanceGuard: ReviewGuard | undefined;

function spend(n: number): void {
  allowance -= n;
  if (allowance < 0) {
    throw new ReviewAborted('size', `the result of a mutation expression would be over the limit of ${allowanceGuard!.maxValueBytes} bytes per value`);
  }
}

/**
 * A bound on the JSON size of what the conversion in progress wrote, counted as `jsonSizeUpTo`
 * (src/jsonpatch) counts: strings as their length + 2, other scalars as 8, an array as 1 + its length,
 * an object as 2 + its key lengths + 4 per member. NaN once a JSON subtree is embedded as it is (a plain
 * object read from a document): its size is not known without a walk.
 */
let written = 0;

/** What a conversion wrote, for a caller that would otherwise measure the result again (see ConvertedSize). */
export interface ConvertedSize {
  /**
   * At least the result's JSON size as `jsonSizeUpTo` counts it; NaN when unknown (the result embeds a
   * document's subtree as it is). Set by the conversion.
   */
  bytes: number;
}

/**
 * A scalar of `n` bytes written (a number, a boolean, a null, a text made from a value): counted in
 * `written` and spent from the allowance. Numbers were only counted, so a JSON patch whose 2,000
 * operations each carried a review's list of 500,000 integers (under the bound alone) was converted whole
 * (1.3 GB of heap, 8 s) before its measured size refused it.
 */
function wrote(n: number): void {
  written += n;
  if (allowance !== Infinity) spend(n);
}

function bounded<T>(guard: ReviewGuard | undefined, convert: () => T, size?: ConvertedSize): T {
  if (guard === undefined) {
    const out = convert();
    if (size) size.bytes = NaN;
    return out;
  }
  const outer = allowance;
  const outerGuard = allowanceGuard;
  const outerWritten = written;
  allowance = guard.maxValueBytes;
  allowanceGuard = guard;
  written = 0;
  try {
    const out = convert();
    if (size) size.bytes = written;
    return out;
  } finally {
    allowance = outer;
    allowanceGuard = outerGuard;
    written = outerWritten;
  }
}

/**
 * How kube-apiserver turns a value inside an `Object{...}` literal of a JSON patch value into Go data
 * (dynamic.ObjectVal.ConvertToNative, then structpb.NewValue), when that differs from cel-go's JSON
 * conversion (`Plain`). A literal's fields go through `convertField` (`Field`): a CEL map's values and,
 * for the lists it builds, a list's elements are taken as their Go `Value()`, and structpb refuses the
 * Go types JSON has no form for (a null is structpb.NullValue, a timestamp time.Time, a duration
 * time.Duration, a CEL map literal map[ref.Val]ref.Val). A list's elements may also be converted field by
 * field (cel-go's concatenated lists and documents' lists are not lists of CEL values): what is refused
 * under both readings is refused (`Element`); a value read as its Go `Value()` for sure is `Native`;
 * below a container whose reading is not known (`Loose`) only timestamps and durations are refused, as
 * they are under every reading.
 */
const enum Go {
  Plain,
  Field,
  Native,
  Element,
  Loose,
}

/**
 * The first Go type structpb would refuse in the JSON patch value being converted (see Go), reported
 * after the type-name check as kube-apiserver orders them; undefined when none.
 */
let refusedNative: string | undefined;
/** Whether the conversion in progress is a JSON patch value's (the only one that goes through structpb). */
let patchValue = false;
/**
 * Whether the conversion in progress is an apply configuration's: its literals are Go maps too, and the Go
 * values JSON has no form for stay in it as GoNative values, for the schema check to refuse in SMD's words.
 */
let applyValue = false;
/** The first NaN or infinity in the JSON patch value being converted: protojson cannot write it. */
let nonFinite: number | undefined;

function refuse(goType: string): void {
  refusedNative ??= goType;
}

/**
 * Converts a CEL value to JSON. Inside Object literals, the type name a nested literal must have (the
 * type-name check) is `typePath`, or with `field` `${typePath}.${field}`: that text is built only for a
 * mismatch's message, so the usual check compares without making a string. `typePath` null: no literal
 * in the value is checked (kube-apiserver checks a JSON patch value only when it is a literal itself).
 */
function toJson(v: unknown, typePath: string | null | undefined, errors: string[], container?: object, key?: string | number, field?: string, go: Go = Go.Plain): JsonValue {
  switch (typeof v) {
    case 'string':
      if (allowance !== Infinity) spend(v.length + 2);
      written += v.length + 2;
      return v;
    case 'boolean':
      wrote(8);
      return v;
    case 'bigint':
      return integer(v, go, container, key);
    case 'number':
      wrote(8);
      if (!Number.isFinite(v)) {
        if (!patchValue) throw new ConversionError(`cannot convert ${v} to JSON`);
        // structpb holds it; protojson refuses to write it (reported after the conversion's own errors).
        nonFinite ??= v;
        return 0;
      }
      // A JSON patch value is written by protojson from a structpb number (a float64): an integral
      // double is written as an integer there, as every number is.
      if (Number.isInteger(v) && container !== undefined && key !== undefined && !patchValue) markFloatLiteral(container, key);
      return v;
  }
  if (v === null || v === undefined) {
    wrote(8);
    if (go === Go.Field || go === Go.Native || go === Go.Element) {
      if (!patchValue) return GO_NULL_VALUE as unknown as JsonValue;
      refuse('structpb.NullValue');
    }
    return null;
  }
  if (go !== Go.Plain) {
    if (v instanceof Timestamp) {
      if (!patchValue) return goNative(goTime(v.ns));
      refuse('time.Time');
    } else if (v instanceof Duration) {
      if (!patchValue) return goNative(goDuration(v.ns));
      refuse('time.Duration');
    } else if (v instanceof Uint8Array && !patchValue && go !== Go.Loose) return goNative(goBytes(v));
    else if (v instanceof CelOptional) {
      // Optional.Value() is its value's Value(), or nil for none.
      if (!v.hasValue()) {
        wrote(8);
        return null;
      }
      return toJson(v.value(), typePath, errors, container, key, field, Go.Native);
    } else if (v instanceof Map && go === Go.Native) {
      if (!patchValue) return goNative(goRefValMap(v as CelMapValue));
      refuse('map[ref.Val]ref.Val');
    }
    else if (v instanceof TypeValue) {
      // A type's Value() is its name.
      wrote(v.name.length + 2);
      return v.name;
    } else {
      const native = patchValue ? LIBRARY_GO_VALUES[typeNameOf(v)] : undefined;
      if (native !== undefined) {
        refuse(native);
        wrote(8);
        return null;
      }
    }
  }
  if (allowance !== Infinity) {
    spend(2);
    // The result is not measured again after the conversion (see ConvertedSize): the deadline is looked at here.
    allowanceGuard!.tick();
  }
  if (Array.isArray(v)) {
    written += 1 + v.length;
    const out: JsonValue[] = [];
    const element = go === Go.Plain ? Go.Plain : go === Go.Field ? Go.Element : Go.Loose;
    for (let i = 0; i < v.length; i++) out.push(toJson(v[i], typePath, errors, out, i, field, element));
    return out;
  }
  if (v instanceof StructValue) {
    if (v.typeName === JSONPATCH_TYPE) throw new ConversionError('a JSONPatch value cannot be converted to JSON', { kind: 'value', value: v });
    // The type name nested literals extend: the literal's own when it is the expected one.
    let parent: string | null = typePath === null ? null : v.typeName;
    if (typePath != null && !(field === undefined ? v.typeName === typePath : namesField(v.typeName, typePath, field))) {
      parent = field === undefined ? typePath : `${typePath}.${field}`;
      errors.push(`unexpected type name "${v.typeName}", expected "${parent}", which matches field name path from root Object type`);
    }
    const out: JsonObject = {};
    written += 2;
    // An apply configuration is the literal's Go map too (dynamic.ObjectVal.Value()).
    const fieldGo = patchValue || applyValue ? Go.Field : Go.Plain;
    for (const [k, fv] of v.fields) {
      // The field's type path matters only to a nested literal (directly or in a list or map).
      const nested = fv !== null && typeof fv === 'object';
      written += k.length + 4;
      try {
        setOwn(out, k, toJson(fv, nested ? parent : undefined, errors, out, k, nested ? k : undefined, fieldGo));
      } catch (err) {
        if (err instanceof ConversionError && err.failure?.kind === 'mapKey') {
          // A literal below a literal is converted by its Go Value(), which turns the failure into a
          // value (a *types.Err) that structpb then refuses.
          if (go !== Go.Plain && patchValue) {
            refuse('*types.Err');
            return out;
          }
          // A literal converts its fields one by one (dynamic.ObjectVal): a key error names the field path.
          if (nested && (fv instanceof StructValue || fv instanceof Map)) err.failure.fields.unshift(k);
        }
        throw err;
      }
    }
    return out;
  }
  if (isPlainObject(v)) {
    written = NaN;
    return v as JsonObject;
  }
  if (v instanceof Map) {
    const out: JsonObject = {};
    written += 2;
    for (const k of mapKeys(v as CelMapValue)) {
      if (typeof k !== 'string') {
        throw new ConversionError(`map key "${String(k instanceof CelUint ? k.valueOf() : k)}" is of type ${typeNameOf(k)}, not string`, {
          kind: 'mapKey',
          key: k,
          fields: [],
        });
      }
      written += k.length + 4;
      const value = go === Go.Plain ? Go.Plain : go === Go.Field ? Go.Native : Go.Loose;
      setOwn(out, k, toJson(mapGet(v as CelMapValue, k), typePath, errors, out, k, field, value));
    }
    return out;
  }
  if (v instanceof CelUint) return integer(v.valueOf(), go, container, key);
  const text = v instanceof Uint8Array ? base64(v) : v instanceof Timestamp ? formatTimestamp(v) : v instanceof Duration ? formatDuration(v) : undefined;
  if (text !== undefined) {
    wrote(text.length + 2);
    return text;
  }
  if (v instanceof CelOptional) {
    // cel-go's Optional converts its value; none has nothing to convert.
    if (v.hasValue()) return toJson(v.value(), typePath, errors, container, key, field);
    throw new ConversionError('optional.none() dereference', { kind: 'value', value: v });
  }
  throw new ConversionError(`value of type ${typeNameOf(v)} cannot be converted to JSON`, { kind: 'value', value: v });
}

/** cel-go's bound of the integers it writes as JSON numbers (maxIntJSON): 2^53 - 1, and its negation. */
const MAX_JSON_INT = 2n ** 53n - 1n;
const INT64_MAX = 2n ** 63n - 1n;

/**
 * A CEL int or uint as JSON. Past ±(2^53 - 1), a JSON patch value outside Object literals is converted by
 * cel-go's ConvertToNative to a structpb.Value: a string of the decimal digits (a float64 would lose
 * some). Inside a literal it is its Go Value(), an int64 that structpb makes a float64 (in a JSON patch)
 * or that stays exact in an apply configuration: there the number is marked with its exact value
 * (src/json/exact-integers.ts), so the merge, later policies and the reply patch keep every digit.
 */
function integer(n: bigint, go: Go, container: object | undefined, key: string | number | undefined): JsonValue {
  if (n >= -MAX_JSON_INT && n <= MAX_JSON_INT) {
    wrote(8);
    return Number(n);
  }
  if (patchValue && go === Go.Plain) {
    const digits = n.toString();
    if (allowance !== Infinity) spend(digits.length + 2);
    written += digits.length + 2;
    return digits;
  }
  wrote(8);
  if (applyValue && n <= INT64_MAX && container !== undefined && key !== undefined) markExactInteger(container, key, n);
  return Number(n);
}

/** A Go value kept in an apply configuration (see applyValue); `written` counts it as a scalar. */
function goNative(g: GoNative): JsonValue {
  wrote(8);
  return g as unknown as JsonValue;
}

/**
 * A CEL map as its Go Value(), a map[ref.Val]ref.Val, for an apply configuration (a map inside a list literal
 * or as a map's value). fmt prints its entries in key order; a scalar as cel-go's type prints (a string's
 * text, an int's digits, a double as %v/%g, a null as its enum number 0); anything else as its JSON text,
 * where Go would print a pointer.
 */
function goRefValMap(m: CelMapValue): GoNative {
  const keys = mapKeys(m);
  const entries = keys.map((k) => ({ k, v: mapGet(m, k) }));
  const order = (x: unknown) => (typeof x === 'string' ? x : String(x instanceof CelUint ? x.valueOf() : x));
  entries.sort((a, b) => {
    const x = a.k;
    const y = b.k;
    if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
    const ox = order(x);
    const oy = order(y);
    return ox < oy ? -1 : ox > oy ? 1 : 0;
  });
  const plain = (x: unknown): string => {
    if (typeof x === 'string') return x;
    if (typeof x === 'bigint' || typeof x === 'boolean') return String(x);
    if (typeof x === 'number') return formatFloatG(x);
    if (x === null || x === undefined) return '0';
    if (x instanceof CelUint) return String(x.valueOf());
    try {
      return JSON.stringify(celToJson(x as CelValue));
    } catch {
      return typeNameOf(x);
    }
  };
  const sharp = (x: unknown): string => (typeof x === 'string' ? strconvQuote(x) : plain(x));
  const v = `map[${entries.map((e) => `${plain(e.k)}:${plain(e.v)}`).join(' ')}]`;
  const sharpV = `map[ref.Val]ref.Val{${entries.map((e) => `${sharp(e.k)}:${sharp(e.v)}`).join(', ')}}`;
  return new GoNative('map[ref.Val]ref.Val', v, sharpV);
}

/** Whether `name` is `${parent}.${field}`, compared in place. */
function namesField(name: string, parent: string, field: string): boolean {
  return (
    name.length === parent.length + 1 + field.length &&
    name.charCodeAt(parent.length) === 0x2e &&
    name.startsWith(parent) &&
    name.endsWith(field)
  );
}

/** Any CEL value as JSON (maps need string keys; Object literals become objects). */
export function celToJson(v: CelValue): JsonValue {
  return toJson(v, undefined, []);
}

/**
 * The JSON Patch of a `list(JSONPatch)` result (spec §8.2), as the JSON text of the patch would read:
 * `[{ op, path, from?, value? }]` with the fields as written (the op name is not checked here; the
 * patch applier decodes it, with kube-apiserver's messages). With a review guard, conversion stops with
 * its ReviewAborted('size') once what it writes passes the guard's bound. `size`, when given, receives a
 * bound on the result's JSON size (see ConvertedSize).
 */
export function toJsonPatchOperations(v: CelValue, guard?: ReviewGuard, size?: ConvertedSize): JsonObject[] {
  return bounded(guard, () => patchOperations(v), size);
}

/** A string field of a JSONPatch value ('' when unset or null). */
function patchField(p: StructValue, f: string): string {
  const x = p.fields.get(f);
  if (x === undefined || x === null) return '';
  if (typeof x !== 'string') throw new ConversionError(`JSONPatch field ${f} must be a string, got ${typeNameOf(x)}`);
  return x;
}

function patchOperations(v: CelValue): JsonObject[] {
  if (!Array.isArray(v)) throw new ConversionError(`expected a list of JSONPatch, got ${typeNameOf(v)}`);
  const ops: JsonObject[] = [];
  // The list and each operation object with its `op` and `path` members (see `written`).
  written += 1 + v.length;
  for (let i = 0; i < v.length; i++) {
    const p: unknown = v[i];
    if (!(p instanceof StructValue) || p.typeName !== JSONPATCH_TYPE) {
      throw new ConversionError(`JSONPatch list element ${i} is of type ${typeNameOf(p)}, not JSONPatch`);
    }
    const op: JsonObject = { op: patchField(p, 'op'), path: patchField(p, 'path') };
    written += 2 + (2 + 4 + (op.op as string).length + 2) + (4 + 4 + (op.path as string).length + 2);
    const from = patchField(p, 'from');
    if (from !== '') {
      op.from = from;
      written += 4 + 4 + from.length + 2;
    }
    if (p.fields.has('value')) {
      const errors: string[] = [];
      const value = p.fields.get('value');
      // The root literal's own name is not checked against the patch path, only nested ones; a value that
      // is not a literal (a list or map of them) is not checked at all (mutating/patch/json_patch.go).
      const root = value instanceof StructValue ? value.typeName : null;
      written += 5 + 4;
      refusedNative = undefined;
      nonFinite = undefined;
      patchValue = true;
      try {
        op.value = toJson(value, root, errors, op, 'value');
      } catch (err) {
        if (err instanceof ConversionError && err.failure) {
          throw new ConversionError(`JSONPath valueExpression evaluated to a type that could not marshal to JSON: ${patchValueError(err.failure)}`);
        }
        throw err;
      } finally {
        patchValue = false;
      }
      if (errors.length) throw new ConversionError(`type mismatch: ${errors.join('\n')}`);
      if (refusedNative !== undefined) {
        throw new ConversionError(`JSONPath valueExpression evaluated to a type that could not marshal to JSON: proto: invalid type: ${refusedNative}`);
      }
      if (nonFinite !== undefined) {
        const shown = Number.isNaN(nonFinite) ? 'NaN' : nonFinite > 0 ? '+Inf' : '-Inf';
        throw new ConversionError(
          `JSONPath valueExpression evaluated to a type that could not marshal to JSON: json: error calling MarshalJSON for type *structpb.Value: proto: google.protobuf.Value.number_value: invalid ${shown} value`,
        );
      }
    }
    ops.push(op);
  }
  return ops;
}

/**
 * The apply configuration of an `Object{...}` result (spec §9.2, §9.3); apiVersion/kind are not stamped.
 * Guard: as above. `size`, when given, receives a bound on the result's JSON size (see ConvertedSize).
 */
export function toApplyConfiguration(v: CelValue, guard?: ReviewGuard, size?: ConvertedSize): JsonObject {
  return bounded(guard, () => applyConfigurationOf(v), size);
}

function applyConfigurationOf(v: CelValue): JsonObject {
  if (!(v instanceof StructValue) || v.typeName !== OBJECT_TYPE) {
    throw new ConversionError(`expected an Object, got ${typeNameOf(v)}`);
  }
  const errors: string[] = [];
  let out: JsonObject;
  applyValue = true;
  try {
    out = toJson(v, OBJECT_TYPE, errors) as JsonObject;
  } catch (err) {
    // The literal's map form fails to build (dynamic.ObjectVal.Value is an error, not a map).
    if (err instanceof ConversionError && err.failure?.kind === 'mapKey') throw new ConversionError('invalid return type: *dynamic.ObjectVal');
    throw err;
  } finally {
    applyValue = false;
  }
  if (errors.length) throw new ConversionError(`type mismatch: ${errors.join('\n')}`);
  return out;
}

/**
 * cel-go's error for a JSON patch value it cannot turn into a structpb.Value: a map key's own
 * conversion to a string, or (in a field of an Object literal) dynamic.ObjectVal's key check; a value's
 * ConvertToNative.
 */
function patchValueError(f: ConversionFailure): string {
  if (f.kind === 'mapKey') {
    if (f.fields.length > 0) {
      const inner = `map key ${goQuoted(f.key)} is of type ${goTypeOf(f.key)}, not string`;
      return f.fields.reduceRight((msg, field) => `fail to convert field "${field}": ${msg}`, inner);
    }
    if (typeof f.key === 'boolean') return "type conversion error from bool to 'string'";
    return `unsupported type conversion from '${f.key instanceof CelUint ? 'uint' : 'int'}' to string`;
  }
  const v = f.value;
  if (v instanceof CelOptional) return 'optional.none() dereference';
  if (v instanceof TypeValue) return "type conversion not supported for 'type'";
  if (v instanceof StructValue) return 'cannot convert to native type: *structpb.Value';
  const library = LIBRARY_TYPE_NAMES[typeNameOf(v)];
  if (library) return `type conversion error from '${library}' to '*structpb.Value'`;
  return `type conversion error from '${typeNameOf(v)}' to '*structpb.Value'`;
}

/** The Go types of Kubernetes' library values' Value(), which structpb refuses inside an Object literal. */
const LIBRARY_GO_VALUES: Record<string, string> = {
  'kubernetes.Quantity': '*resource.Quantity',
  'net.IP': 'netip.Addr',
  'net.CIDR': 'netip.Prefix',
  'kubernetes.URL': '*url.URL',
  'kubernetes.Semver': 'semver.Version',
  'kubernetes.NamedFormat': 'cel.Format',
};

/** The Go type names Kubernetes' library values report in conversion errors. */
const LIBRARY_TYPE_NAMES: Record<string, string> = {
  'kubernetes.Quantity': 'Quantity',
  'net.IP': 'IP',
  'net.CIDR': 'CIDR',
  'kubernetes.URL': 'URL',
  'kubernetes.Semver': 'Semver',
  'kubernetes.NamedFormat': 'Format',
};

/** `%T` of a cel-go map key (types.Int, types.Uint, types.Bool). */
function goTypeOf(k: unknown): string {
  return typeof k === 'boolean' ? 'types.Bool' : k instanceof CelUint ? 'types.Uint' : 'types.Int';
}

/** `%q` of a cel-go map key: an integer as a quoted rune (Go's fmtQc), a bool as a bad verb. */
function goQuoted(k: unknown): string {
  if (typeof k === 'boolean') return `%!q(types.Bool=${k})`;
  const n = k instanceof CelUint ? k.valueOf() : (k as bigint);
  // fmtQc takes the value as a uint64: a negative int or one past the last rune is U+FFFD.
  const u = BigInt.asUintN(64, n);
  return goQuoteRune(u > 0x10ffffn ? 0xfffd : Number(u));
}

/** strconv.QuoteRune: printable runes as they are, the rest escaped. */
function goQuoteRune(r: number): string {
  if (r >= 0xd800 && r <= 0xdfff) r = 0xfffd;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v', 0x27: "\\'", 0x5c: '\\\\' };
  if (named[r] !== undefined) return `'${named[r]}'`;
  const ch = String.fromCodePoint(r);
  if (r === 0x20 || (r > 0x20 && r < 0x7f) || (r > 0x7f && /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch))) return `'${ch}'`;
  if (r < 0x80) return `'\\x${r.toString(16).padStart(2, '0')}'`;
  if (r < 0x10000) return `'\\u${r.toString(16).padStart(4, '0')}'`;
  return `'\\U${r.toString(16).padStart(8, '0')}'`;
}
