import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { celError, intOverflow } from './errors.js';

/**
 * Runtime helpers over cel-js values: ints are bigint, doubles number, uints `UnsignedInt`, bytes
 * `Uint8Array`, timestamps `Date`, durations `Duration`, lists arrays (or Sets), maps plain objects
 * or `Map`s. Library types implement {@link CelLibraryValue}.
 */

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;

/** A value of one of this folder's types (Quantity, net.IP, ...): cel-go equality and a type name. */
export interface CelLibraryValue {
  readonly celTypeName: string;
  celEquals(other: unknown): boolean;
}

export function isLibraryValue(v: unknown): v is CelLibraryValue {
  return typeof v === 'object' && v !== null && typeof (v as CelLibraryValue).celEquals === 'function';
}

export function checkedInt(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw intOverflow();
  return v;
}

export function isList(v: unknown): v is readonly unknown[] | ReadonlySet<unknown> {
  return Array.isArray(v) || v instanceof Set;
}

export function listItems(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  if (v instanceof Set) return [...v];
  throw celError('no such overload');
}

export function isMap(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (v instanceof Map) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function mapEntries(v: unknown): [unknown, unknown][] {
  if (v instanceof Map) return [...v.entries()];
  return Object.entries(v as Record<string, unknown>);
}

/** Number of Unicode code points (CEL string size). */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** cel-go's size of a value, as Kubernetes' cost functions measure it (`actualSize`). */
export function celSize(v: unknown): number {
  if (typeof v === 'string') return codePointLength(v);
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Set || v instanceof Map) return v.size;
  if (isMap(v)) return Object.keys(v as object).length;
  return 1;
}

/** cel-go's type name of a runtime value, as error messages print it. */
export function celTypeName(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
  }
  if (v === null || v === undefined) return 'null_type';
  if (v instanceof UnsignedInt) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  if (v instanceof Duration) return 'google.protobuf.Duration';
  if (v instanceof Optional) return 'optional_type';
  if (isList(v)) return 'list';
  if (isMap(v)) return 'map';
  if (isLibraryValue(v)) return v.celTypeName;
  const name = (v as { name?: unknown }).name;
  if (typeof name === 'string' && String(v).startsWith('Type<')) return 'type';
  // Engine message values (Kubernetes Object{...}, JSONPatch{...}) carry their CEL type name.
  const typeName = (v as { typeName?: unknown }).typeName;
  if (typeof typeName === 'string') return typeName;
  return (v as object).constructor?.name ?? 'unknown';
}

/**
 * Nanoseconds since the epoch of a timestamp: cel-js timestamps are Dates (milliseconds); engines
 * with finer timestamps extend Date with an `ns` field (src/cel/engine/values.ts).
 */
export function timestampNanos(d: Date): bigint {
  const ns = (d as { ns?: unknown }).ns;
  return typeof ns === 'bigint' ? ns : BigInt(d.getTime()) * 1_000_000n;
}

/** Exact comparison of an int (bigint) with a double; undefined when the double is NaN. */
export function compareIntDouble(a: bigint, b: number): -1 | 0 | 1 | undefined {
  if (Number.isNaN(b)) return undefined;
  if (b === Infinity) return -1;
  if (b === -Infinity) return 1;
  const t = Math.trunc(b);
  const bt = BigInt(t);
  if (a < bt) return -1;
  if (a > bt) return 1;
  const frac = b - t;
  return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

function numericValue(v: unknown): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UnsignedInt) return v.valueOf();
  return undefined;
}

function compareNumbers(a: bigint | number, b: bigint | number): -1 | 0 | 1 | undefined {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'bigint') return compareIntDouble(a, b as number);
  const r = compareIntDouble(b as bigint, a);
  return r === undefined ? undefined : ((-r || 0) as -1 | 0 | 1);
}

/** Compares strings by Unicode code point (Go's byte-wise UTF-8 order), not by UTF-16 unit. */
export function compareStrings(a: string, b: string): -1 | 0 | 1 {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800-0xDFFF) encode code points above 0xFFFF: they sort after 0xE000-0xFFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function compareDurations(a: Duration, b: Duration): -1 | 0 | 1 {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** True for the kinds of value cel-go can order (`traits.Comparer`). */
export function isComparable(v: unknown): boolean {
  return (
    typeof v === 'bigint' ||
    typeof v === 'number' ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    v instanceof UnsignedInt ||
    v instanceof Uint8Array ||
    v instanceof Date ||
    v instanceof Duration ||
    (isLibraryValue(v) && typeof (v as { celCompare?: unknown }).celCompare === 'function')
  );
}

/**
 * Orders two comparable values as cel-go's `Compare` does (numbers across int/uint/double); throws
 * `no such overload` for values of kinds that cannot be compared with each other.
 */
export function compareValues(a: unknown, b: unknown): -1 | 0 | 1 {
  const na = numericValue(a);
  const nb = numericValue(b);
  if (na !== undefined && nb !== undefined) {
    const r = compareNumbers(na, nb);
    // NaN orders with nothing; cel-go reports such comparisons as not-less and not-greater.
    return r ?? 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof Date && b instanceof Date) {
    const x = timestampNanos(a);
    const y = timestampNanos(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a instanceof Duration && b instanceof Duration) return compareDurations(a, b);
  if (isLibraryValue(a) && isLibraryValue(b) && a.celTypeName === b.celTypeName) {
    const cmp = (a as { celCompare?: (o: unknown) => -1 | 0 | 1 }).celCompare;
    if (cmp) return cmp.call(a, b);
  }
  throw celError('no such overload');
}

/** The entry of map `m` whose key equals `key` (CEL equality: 1 and 1.0 are the same key). */
export function mapLookup(m: unknown, key: unknown): { value: unknown } | undefined {
  if (m instanceof Map) {
    if (m.has(key)) return { value: m.get(key) };
    if (typeof key === 'string') return undefined;
    for (const [k, v] of m) if (celEquals(k, key)) return { value: v };
    return undefined;
  }
  const obj = m as Record<string, unknown>;
  return typeof key === 'string' && Object.hasOwn(obj, key) ? { value: obj[key] } : undefined;
}

/** CEL equality (cel-go heterogeneous equality): never throws, values of different kinds differ. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  const na = numericValue(a);
  if (na !== undefined) {
    const nb = numericValue(b);
    return nb !== undefined && compareNumbers(na, nb) === 0;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && compareBytes(a, b) === 0;
  if (a instanceof Date) return b instanceof Date && timestampNanos(a) === timestampNanos(b);
  if (a instanceof Duration) return b instanceof Duration && compareDurations(a, b) === 0;
  if (a instanceof Optional) {
    if (!(b instanceof Optional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value(), b.value());
  }
  if (isList(a)) {
    if (!isList(b)) return false;
    const x = listItems(a);
    const y = listItems(b);
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!celEquals(x[i], y[i])) return false;
    return true;
  }
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const x = mapEntries(a);
    if (x.length !== celSize(b)) return false;
    for (const [k, v] of x) {
      const other = mapLookup(b, k);
      if (other === undefined || !celEquals(v, other.value)) return false;
    }
    return true;
  }
  if (isLibraryValue(a)) return a.celEquals(b);
  return false;
}
