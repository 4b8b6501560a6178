/**
 * The CEL standard library (cel-go `common/stdlib`), with cel-go's overload ids, semantics and runtime
 * costs (`interpreter/runtimecost.go`), plus the optional-type library and the helper functions macros
 * expand to (`cel.@mapInsert`, `@not_strictly_false`; `sortBy`'s `@sortByAssociatedKeys` belongs to
 * the lists library, src/cel/lib/lists.ts).
 */
import { formatFloatG, parseFloat64, parseInt64, parseUint64 } from '../../go/index.js';
import { checkBuiltSize } from './bounds.js';
import { RE2JS } from 're2js';
import { Op } from './ast.js';
import type { Env } from './env.js';
import { CelEvalError } from './errors.js';
import { makeOverload, type CostFn, type Impl } from './functions.js';
import { MAP_INSERT } from './macros.js';
import { actualSize, celCompare, mapGet, mapInsert, mapKeys, typeNameOf } from './runtime.js';
import { checkDuration, checkTimestamp, civil, durationToString, formatTimestamp, parseDuration, parseTimestamp } from './time.js';
import { CelType, T, listOf, mapOf, optionalOf, typeOf, typeParam } from './types.js';
import {
  CelOptional,
  CelUint,
  Duration,
  INT64_MAX,
  INT64_MIN,
  NANOS_PER_SECOND,
  StructValue,
  TS_MIN_SECONDS,
  Timestamp,
  TypeValue,
  UINT64_MAX,
  isMapValue,
  mapSize,
  stringSize,
  type CelMapValue,
  type CelValue,
} from './values.js';

const A = typeParam('A');
const B = typeParam('B');
const K = typeParam('K');
const V = typeParam('V');

// ---- cost helpers (cel-go runtimecost.go)
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;
const traversal0: CostFn = (args) => Math.ceil(actualSize(args[0]) * STRING_TRAVERSAL_COST_FACTOR);
/**
 * startsWith/endsWith: a traversal of the argument (the prefix or suffix), as cel-go v0.29.2 charges
 * (cel-go#1351: the runtime cost agrees with the checker's estimate, which was always by the argument).
 */
const traversal1: CostFn = (args) => Math.ceil(actualSize(args[1]) * STRING_TRAVERSAL_COST_FACTOR);
/** The cost of comparing `a` and `b` for equality (cel-go: a traversal of the smaller). */
export function equalityCost(a: unknown, b: unknown): number {
  // Two strings, the shorter of at most 10 UTF-16 units: it has 1 to 10 code points (none when empty),
  // so the cost is 1 (0) whatever their count, and neither string needs its code points counted.
  if (typeof a === 'string' && typeof b === 'string') {
    const shorter = a.length < b.length ? a.length : b.length;
    if (shorter <= 10) return shorter === 0 ? 0 : 1;
  }
  return Math.ceil(Math.min(actualSize(a), actualSize(b)) * STRING_TRAVERSAL_COST_FACTOR);
}
const minSize: CostFn = (args) => equalityCost(args[0], args[1]);
const sumSize: CostFn = (args) => Math.ceil((actualSize(args[0]) + actualSize(args[1])) * STRING_TRAVERSAL_COST_FACTOR);
const IN_LIST_COST: CostFn = (args) => actualSize(args[1]);

// ---- integer helpers
/** The int64 `v`, or cel-go's 'integer overflow' error. */
export function checkInt(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw new CelEvalError('integer overflow');
  return v;
}
function checkUint(v: bigint): CelUint {
  if (v < 0n || v > UINT64_MAX) throw new CelEvalError('unsigned integer overflow');
  return new CelUint(v);
}

const regexCache = new Map<string, RE2JS>();
/** Compiles (and caches) an RE2 pattern; throws a CEL error naming the bad pattern. */
function compileRegex(pattern: string): RE2JS {
  let re = regexCache.get(pattern);
  if (re) return re;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    throw new CelEvalError(`error parsing regexp: ${(e as Error).message}`);
  }
  if (regexCache.size > 1000) regexCache.clear();
  regexCache.set(pattern, re);
  return re;
}

// ignoreBOM keeps a leading U+FEFF, as Go's string(bytes) does (the default drops it).
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

/**
 * type(v): cel-go asks the value's ConvertToType(TypeType). A library value whose Go type refuses that
 * (Kyverno's image(): Image.ConvertToType answers only its own type) marks itself `celTypeOfFails`.
 */
function typeValueOf(v: CelValue): TypeValue {
  const name = typeNameOf(v);
  if ((v as { celTypeOfFails?: boolean } | null)?.celTypeOfFails === true) throw new CelEvalError(`type conversion error from '${name}' to 'type'`);
  return TypeValue.of(name);
}

function boolFromString(s: string): boolean {
  switch (s) {
    case '1':
    case 't':
    case 'T':
    case 'true':
    case 'TRUE':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'false':
    case 'FALSE':
    case 'False':
      return false;
  }
  throw new CelEvalError(`type conversion error from 'string' to 'bool'`);
}

function isZeroValue(v: CelValue): boolean {
  if (v === null || v === false || v === 0n || v === 0 || v === '') return true;
  if (v instanceof CelUint) return v.valueOf() === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return (v as { length: number }).length === 0;
  if (isMapValue(v)) return mapSize(v as CelMapValue) === 0;
  // Go's zero time (0001-01-01T00:00:00Z) is a timestamp's zero value (time.Time.IsZero), not the epoch.
  if (v instanceof Timestamp) return v.ns === TS_MIN_SECONDS * 1_000_000_000n;
  if (v instanceof Duration) return v.ns === 0n;
  if (v instanceof StructValue) return v.fields.size === 0;
  // cel-go's Optional is no traits.Zeroer: optional.ofNonZeroValue(optional.none()) holds the none.
  return false;
}

/** optional.unwrap / unwrapOpt: the values of a list's optionals that have one, in order. */
function unwrapOptionals(list: readonly CelValue[]): CelValue[] {
  const out: CelValue[] = [];
  for (const item of list) {
    if (!(item instanceof CelOptional)) throw new CelEvalError(`value ${goValueText(item)} is not optional`);
    if (item.hasValue()) out.push(item.value() as CelValue);
  }
  return out;
}

/** A scalar as Go's `%v` prints the cel-go value; the type name for the others (an error message's detail). */
function goValueText(v: unknown): string {
  if (typeof v === 'string' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return String(v);
  if (v instanceof CelUint) return v.valueOf().toString();
  if (v === null) return 'NULL_VALUE';
  return typeNameOf(v);
}

export interface StdlibOptions {
  /**
   * `duration.getMilliseconds()`: 'total' milliseconds, as cel-go computes it (Go's
   * Duration.Milliseconds(), common/types/duration.go) and so Kubernetes (the default); or the
   * 'component' within the second, as cel-spec's conformance test get_milliseconds wants (cel-go skips it).
   */
  durationMilliseconds?: 'total' | 'component';
}

export function registerStdlib(env: Env, options: StdlibOptions = {}): void {
  // Declared lazily: an overload is built when its function is first looked up (cold start).
  const add = (id: string, fn: string, params: CelType[], result: CelType, impl?: Impl, cost?: CostFn) =>
    env.addLazyFunction(fn, () => makeOverload({ id, fn, params, result, impl, cost }));
  const member = (id: string, fn: string, params: CelType[], result: CelType, impl?: Impl, cost?: CostFn) =>
    env.addLazyFunction(fn, () => makeOverload({ id, fn, params, result, impl, cost, member: true }));

  // ---- logic (the planner implements these; declared for type checking)
  add('conditional', Op.conditional, [T.bool, A, A], A);
  add('logical_and', Op.and, [T.bool, T.bool], T.bool);
  add('logical_or', Op.or, [T.bool, T.bool], T.bool);
  add('logical_not', Op.not, [T.bool], T.bool, (b: boolean) => !b);
  add('not_strictly_false', Op.notStrictlyFalse, [T.bool], T.bool);
  add('equals', Op.equals, [A, A], T.bool, undefined, minSize);
  add('not_equals', Op.notEquals, [A, A], T.bool, undefined, minSize);

  // ---- arithmetic
  add('add_bytes', Op.add, [T.bytes, T.bytes], T.bytes, (a: Uint8Array, b: Uint8Array) => {
    checkBuiltSize(a.length + b.length, 'a concatenation of bytes');
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  }, sumSize);
  add('add_double', Op.add, [T.double, T.double], T.double, (a: number, b: number) => a + b);
  add('add_duration_duration', Op.add, [T.duration, T.duration], T.duration, (a: Duration, b: Duration) => checkDuration(a.ns + b.ns));
  add('add_duration_timestamp', Op.add, [T.duration, T.timestamp], T.timestamp, (a: Duration, b: Timestamp) => checkTimestamp(a.ns + b.ns, b.offset));
  add('add_timestamp_duration', Op.add, [T.timestamp, T.duration], T.timestamp, (a: Timestamp, b: Duration) => checkTimestamp(a.ns + b.ns, a.offset));
  add('add_int64', Op.add, [T.int, T.int], T.int, (a: bigint, b: bigint) => checkInt(a + b));
  add('add_list', Op.add, [listOf(A), listOf(A)], listOf(A), (a: CelValue[], b: CelValue[]) => {
    if (a.length === 0) return b;
    if (b.length === 0) return a;
    checkBuiltSize(a.length + b.length, 'a concatenation of lists');
    return a.concat(b);
  });
  add('add_string', Op.add, [T.string, T.string], T.string, (a: string, b: string) => {
    checkBuiltSize(a.length + b.length, 'a concatenation of strings');
    return a + b;
  }, sumSize);
  add('add_uint64', Op.add, [T.uint, T.uint], T.uint, (a: CelUint, b: CelUint) => checkUint(a.valueOf() + b.valueOf()));

  add('subtract_double', Op.subtract, [T.double, T.double], T.double, (a: number, b: number) => a - b);
  add('subtract_duration_duration', Op.subtract, [T.duration, T.duration], T.duration, (a: Duration, b: Duration) => checkDuration(a.ns - b.ns));
  add('subtract_int64', Op.subtract, [T.int, T.int], T.int, (a: bigint, b: bigint) => checkInt(a - b));
  add('subtract_timestamp_duration', Op.subtract, [T.timestamp, T.duration], T.timestamp, (a: Timestamp, b: Duration) => {
    // cel-go adds the negated duration: negating the least int64 overflows first.
    if (b.ns === INT64_MIN) throw new CelEvalError('integer overflow');
    return checkTimestamp(a.ns - b.ns, a.offset);
  });
  add('subtract_timestamp_timestamp', Op.subtract, [T.timestamp, T.timestamp], T.duration, (a: Timestamp, b: Timestamp) => checkDuration(a.ns - b.ns));
  add('subtract_uint64', Op.subtract, [T.uint, T.uint], T.uint, (a: CelUint, b: CelUint) => checkUint(a.valueOf() - b.valueOf()));

  add('multiply_double', Op.multiply, [T.double, T.double], T.double, (a: number, b: number) => a * b);
  add('multiply_int64', Op.multiply, [T.int, T.int], T.int, (a: bigint, b: bigint) => checkInt(a * b));
  add('multiply_uint64', Op.multiply, [T.uint, T.uint], T.uint, (a: CelUint, b: CelUint) => checkUint(a.valueOf() * b.valueOf()));

  add('divide_double', Op.divide, [T.double, T.double], T.double, (a: number, b: number) => a / b);
  add('divide_int64', Op.divide, [T.int, T.int], T.int, (a: bigint, b: bigint) => {
    if (b === 0n) throw new CelEvalError('division by zero');
    return checkInt(a / b);
  });
  add('divide_uint64', Op.divide, [T.uint, T.uint], T.uint, (a: CelUint, b: CelUint) => {
    if (b.valueOf() === 0n) throw new CelEvalError('division by zero');
    return new CelUint(a.valueOf() / b.valueOf());
  });
  add('modulo_int64', Op.modulo, [T.int, T.int], T.int, (a: bigint, b: bigint) => {
    if (b === 0n) throw new CelEvalError('modulus by zero');
    if (b === -1n && a === INT64_MIN) throw new CelEvalError('integer overflow');
    return a % b;
  });
  add('modulo_uint64', Op.modulo, [T.uint, T.uint], T.uint, (a: CelUint, b: CelUint) => {
    if (b.valueOf() === 0n) throw new CelEvalError('modulus by zero');
    return new CelUint(a.valueOf() % b.valueOf());
  });
  add('negate_double', Op.negate, [T.double], T.double, (a: number) => -a);
  add('negate_int64', Op.negate, [T.int], T.int, (a: bigint) => checkInt(-a));

  // ---- relations (cross-type numeric comparisons enabled)
  const rel: [string, string, (c: number) => boolean][] = [
    ['less', Op.less, (c) => c < 0],
    ['less_equals', Op.lessEquals, (c) => c <= 0],
    ['greater', Op.greater, (c) => c > 0],
    ['greater_equals', Op.greaterEquals, (c) => c >= 0],
  ];
  const relTypes: [string, CelType, CelType, CostFn | undefined][] = [
    ['bool', T.bool, T.bool, undefined],
    ['int64', T.int, T.int, undefined],
    ['int64_double', T.int, T.double, undefined],
    ['int64_uint64', T.int, T.uint, undefined],
    ['uint64', T.uint, T.uint, undefined],
    ['uint64_double', T.uint, T.double, undefined],
    ['uint64_int64', T.uint, T.int, undefined],
    ['double', T.double, T.double, undefined],
    ['double_int64', T.double, T.int, undefined],
    ['double_uint64', T.double, T.uint, undefined],
    ['string', T.string, T.string, minSize],
    ['bytes', T.bytes, T.bytes, minSize],
    ['timestamp', T.timestamp, T.timestamp, undefined],
    ['duration', T.duration, T.duration, undefined],
  ];
  for (const [prefix, fn, test] of rel) {
    for (const [suffix, l, r, cost] of relTypes) {
      add(`${prefix}_${suffix}`, fn, [l, r], T.bool, (a: CelValue, b: CelValue) => {
        const c = celCompare(a, b);
        // A NaN operand: cel-go's Double/Int/Uint Compare return this error (common/types/double.go).
        if (c === undefined) throw new CelEvalError('NaN values cannot be ordered');
        return test(c);
      }, cost);
    }
  }

  // ---- indexing and membership (the planner evaluates these; declared for the checker)
  add('index_list', Op.index, [listOf(A), T.int], A);
  add('index_map', Op.index, [mapOf(A, B), A], B);
  add('optional_list_index_int', Op.index, [optionalOf(listOf(V)), T.int], optionalOf(V));
  add('optional_map_index_value', Op.index, [optionalOf(mapOf(K, V)), K], optionalOf(V));
  add('list_optindex_optional_int', Op.optIndex, [listOf(V), T.int], optionalOf(V));
  add('optional_list_optindex_optional_int', Op.optIndex, [optionalOf(listOf(V)), T.int], optionalOf(V));
  add('map_optindex_optional_value', Op.optIndex, [mapOf(K, V), K], optionalOf(V));
  add('optional_map_optindex_optional_value', Op.optIndex, [optionalOf(mapOf(K, V)), K], optionalOf(V));
  add('select_optional_field', Op.optSelect, [T.dyn, T.string], optionalOf(V));
  add('in_list', Op.in, [A, listOf(A)], T.bool, undefined, IN_LIST_COST);
  add('in_map', Op.in, [A, mapOf(A, B)], T.bool);

  // ---- size
  const sizeOf = (v: CelValue) =>
    BigInt(typeof v === 'string' ? stringSize(v) : v instanceof Uint8Array ? v.length : Array.isArray(v) ? v.length : mapSize(v as CelMapValue));
  for (const [s, t] of [['bytes', T.bytes], ['list', listOf(A)], ['map', mapOf(A, B)], ['string', T.string]] as const) {
    add(`size_${s}`, 'size', [t], T.int, sizeOf);
    member(`${s}_size`, 'size', [t], T.int, sizeOf);
  }

  // ---- conversions
  add('type', 'type', [A], typeOf(A), typeValueOf);
  add('to_dyn', 'dyn', [A], T.dyn, (v: CelValue) => v);
  add('bool_to_bool', 'bool', [T.bool], T.bool, (v: boolean) => v);
  add('string_to_bool', 'bool', [T.string], T.bool, boolFromString);
  add('bytes_to_bytes', 'bytes', [T.bytes], T.bytes, (v: Uint8Array) => v);
  add('string_to_bytes', 'bytes', [T.string], T.bytes, (v: string) => utf8Encoder.encode(v), traversal0);
  add('double_to_double', 'double', [T.double], T.double, (v: number) => v);
  add('int64_to_double', 'double', [T.int], T.double, (v: bigint) => Number(v));
  add('string_to_double', 'double', [T.string], T.double, (v: string) => {
    const d = parseFloat64(v);
    if (d === undefined) throw new CelEvalError(`type conversion error from 'string' to 'double'`);
    return d;
  });
  add('uint64_to_double', 'double', [T.uint], T.double, (v: CelUint) => Number(v.valueOf()));
  add('duration_to_duration', 'duration', [T.duration], T.duration, (v: Duration) => v);
  // No duration(int): cel-go never converted an int to a duration and dropped the declaration (cel-go#1300).
  add('string_to_duration', 'duration', [T.string], T.duration, (v: string) => {
    const d = parseDuration(v);
    if (!d) throw new CelEvalError(`type conversion error from 'string' to 'google.protobuf.Duration'`);
    return d;
  });
  add('int64_to_int64', 'int', [T.int], T.int, (v: bigint) => v);
  add('double_to_int64', 'int', [T.double], T.int, (v: number) => {
    if (!(v > -9223372036854775808 && v < 9223372036854775807)) throw new CelEvalError('integer overflow');
    return BigInt(Math.trunc(v));
  });
  add('duration_to_int64', 'int', [T.duration], T.int, (v: Duration) => v.ns);
  add('string_to_int64', 'int', [T.string], T.int, (v: string) => {
    const i = parseInt64(v);
    if (i === undefined) throw new CelEvalError(`type conversion error from 'string' to 'int'`);
    return i;
  });
  add('timestamp_to_int64', 'int', [T.timestamp], T.int, (v: Timestamp) => v.seconds);
  add('uint64_to_int64', 'int', [T.uint], T.int, (v: CelUint) => {
    if (v.valueOf() > INT64_MAX) throw new CelEvalError('integer overflow');
    return v.valueOf();
  });
  add('string_to_string', 'string', [T.string], T.string, (v: string) => v);
  add('bool_to_string', 'string', [T.bool], T.string, (v: boolean) => String(v));
  add('bytes_to_string', 'string', [T.bytes], T.string, (v: Uint8Array) => {
    try {
      return utf8Decoder.decode(v);
    } catch {
      throw new CelEvalError('invalid UTF-8 in bytes, cannot convert to string');
    }
  }, traversal0);
  add('double_to_string', 'string', [T.double], T.string, formatFloatG);
  add('duration_to_string', 'string', [T.duration], T.string, durationToString);
  add('int64_to_string', 'string', [T.int], T.string, (v: bigint) => v.toString());
  add('timestamp_to_string', 'string', [T.timestamp], T.string, formatTimestamp);
  add('uint64_to_string', 'string', [T.uint], T.string, (v: CelUint) => v.valueOf().toString());
  add('timestamp_to_timestamp', 'timestamp', [T.timestamp], T.timestamp, (v: Timestamp) => v);
  add('int64_to_timestamp', 'timestamp', [T.int], T.timestamp, (v: bigint) => checkTimestamp(v * NANOS_PER_SECOND));
  add('string_to_timestamp', 'timestamp', [T.string], T.timestamp, (v: string) => {
    const t = parseTimestamp(v);
    if (!t) throw new CelEvalError(`type conversion error from 'string' to 'google.protobuf.Timestamp'`);
    return checkTimestamp(t.ns, t.offset);
  });
  add('uint64_to_uint64', 'uint', [T.uint], T.uint, (v: CelUint) => v);
  add('double_to_uint64', 'uint', [T.double], T.uint, (v: number) => {
    if (!(v >= 0 && v < 18446744073709551616)) throw new CelEvalError('unsigned integer overflow');
    return new CelUint(BigInt(Math.trunc(v)));
  });
  add('int64_to_uint64', 'uint', [T.int], T.uint, (v: bigint) => {
    if (v < 0n) throw new CelEvalError('unsigned integer overflow');
    return new CelUint(v);
  });
  add('string_to_uint64', 'uint', [T.string], T.uint, (v: string) => {
    const i = parseUint64(v);
    if (i === undefined) throw new CelEvalError(`type conversion error from 'string' to 'uint'`);
    return new CelUint(i);
  });

  // ---- strings
  member('contains_string', 'contains', [T.string, T.string], T.bool, (a: string, b: string) => a.includes(b),
    (args) =>
      Math.ceil(actualSize(args[0]) * STRING_TRAVERSAL_COST_FACTOR) * Math.ceil(actualSize(args[1]) * STRING_TRAVERSAL_COST_FACTOR));
  member('ends_with_string', 'endsWith', [T.string, T.string], T.bool, (a: string, b: string) => a.endsWith(b), traversal1);
  member('starts_with_string', 'startsWith', [T.string, T.string], T.bool, (a: string, b: string) => a.startsWith(b), traversal1);
  const matches = (s: string, re: string) => compileRegex(re).test(s);
  const matchesCost: CostFn = (args) =>
    Math.ceil((1 + actualSize(args[0])) * STRING_TRAVERSAL_COST_FACTOR) *
    Math.ceil(actualSize(args[1]) * REGEX_STRING_LENGTH_COST_FACTOR);
  add('matches', 'matches', [T.string, T.string], T.bool, matches, matchesCost);
  member('matches_string', 'matches', [T.string, T.string], T.bool, matches, matchesCost);

  // ---- timestamps and durations
  type Getter = (c: ReturnType<typeof civil>) => number;
  const tsGetters: [string, string, Getter][] = [
    ['getFullYear', 'year', (c) => c.year],
    ['getMonth', 'month', (c) => c.month - 1],
    ['getDayOfYear', 'day_of_year', (c) => c.dayOfYear],
    ['getDayOfMonth', 'day_of_month_zero_based', (c) => c.day - 1],
    ['getDate', 'day_of_month_one_based', (c) => c.day],
    ['getDayOfWeek', 'day_of_week', (c) => c.dayOfWeek],
    ['getHours', 'hours', (c) => c.hour],
    ['getMinutes', 'minutes', (c) => c.minute],
    ['getSeconds', 'seconds', (c) => c.second],
    ['getMilliseconds', 'milliseconds', (c) => c.millis],
  ];
  for (const [fn, id, get] of tsGetters) {
    member(`timestamp_to_${id}`, fn, [T.timestamp], T.int, (t: Timestamp) => BigInt(get(civil(t))));
    member(`timestamp_to_${id}_with_tz`, fn, [T.timestamp, T.string], T.int, (t: Timestamp, tz: string) => BigInt(get(civil(t, tz))));
  }
  member('duration_to_hours', 'getHours', [T.duration], T.int, (d: Duration) => d.ns / 3_600_000_000_000n);
  member('duration_to_minutes', 'getMinutes', [T.duration], T.int, (d: Duration) => d.ns / 60_000_000_000n);
  member('duration_to_seconds', 'getSeconds', [T.duration], T.int, (d: Duration) => d.ns / NANOS_PER_SECOND);
  const millisOf =
    options.durationMilliseconds === 'component' ? (d: Duration) => (d.ns / 1_000_000n) % 1000n : (d: Duration) => d.ns / 1_000_000n;
  member('duration_to_milliseconds', 'getMilliseconds', [T.duration], T.int, millisOf);

  // ---- optionals
  add('optional_of', 'optional.of', [V], optionalOf(V), (v: CelValue) => CelOptional.of(v));
  add('optional_ofNonZeroValue', 'optional.ofNonZeroValue', [V], optionalOf(V), (v: CelValue) =>
    isZeroValue(v) ? CelOptional.none() : CelOptional.of(v));
  add('optional_none', 'optional.none', [], optionalOf(V), () => CelOptional.none());
  member('optional_value', 'value', [optionalOf(V)], V, (o: CelOptional) => {
    if (!o.hasValue()) throw new CelEvalError('optional.none() dereference');
    return o.value() as CelValue;
  });
  member('optional_hasValue', 'hasValue', [optionalOf(V)], T.bool, (o: CelOptional) => o.hasValue());
  member('optional_or_optional', 'or', [optionalOf(V), optionalOf(V)], optionalOf(V));
  member('optional_orValue_value', 'orValue', [optionalOf(V), V], V);
  // The optional library's version 2 (cel-go cel/library.go; Kubernetes declares the latest version).
  add('optional_unwrap', 'optional.unwrap', [listOf(optionalOf(V))], listOf(V), unwrapOptionals);
  member('optional_unwrapOpt', 'unwrapOpt', [listOf(optionalOf(V))], listOf(V), unwrapOptionals);

  // ---- helpers behind macros
  add('@mapInsert_map_key_value', MAP_INSERT, [mapOf(K, V), K, V], mapOf(K, V), (m: CelMapValue, k: CelValue, v: CelValue) => mapInsert(m, k, v));
  add('@mapInsert_map_map', MAP_INSERT, [mapOf(K, V), mapOf(K, V)], mapOf(K, V), (m: CelMapValue, u: CelMapValue) => {
    let out: CelMapValue = m;
    for (const k of mapKeys(u)) out = mapInsert(out, k, mapGet(u, k) as CelValue);
    return out;
  });
}
