import { actualSize, celEquals as engineEquals, mapGet, mapKeys, typeNameOf } from '../engine/runtime.js';
import { CelUint, Duration, INT64_MAX, INT64_MIN, Timestamp, isMapValue, type CelMapValue } from '../engine/values.js';
import type { CelLibraryValue } from '../library.js';
import { celError, intOverflow } from './errors.js';

/**
 * Runtime helpers over the engine's values (src/cel/engine/values.ts) for the libraries: list and
 * map access, sizes, and the ordering cel-go's `Compare` gives the comparable types.
 */

export { UINT64_MAX } from '../engine/values.js';

function isLibraryValue(v: unknown): v is CelLibraryValue {
  return typeof v === 'object' && v !== null && typeof (v as CelLibraryValue).celEquals === 'function';
}

export function checkedInt(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw intOverflow();
  return v;
}

export function isList(v: unknown): v is readonly unknown[] {
  return Array.isArray(v);
}

export function listItems(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  throw celError('no such overload');
}

export const isMap: (v: unknown) => v is CelMapValue = isMapValue;

/** A map's entries, with values read as CEL values (JSON numbers become int or double). */
export function mapEntries(v: unknown): [unknown, unknown][] {
  const m = v as CelMapValue;
  return mapKeys(m).map((k) => [k, mapGet(m, k)]);
}

/** cel-go's size of a value, as Kubernetes' cost functions measure it (`actualSize`). */
export const celSize: (v: unknown) => number = actualSize;

/** cel-go's type name of a runtime value, as error messages print it. */
export const celTypeName: (v: unknown) => string = typeNameOf;

/** CEL equality (cel-go heterogeneous equality): never throws, values of different kinds differ. */
export const celEquals: (a: unknown, b: unknown) => boolean = engineEquals;

/** Exact comparison of an int (bigint) with a double; undefined when the double is NaN. */
function compareIntDouble(a: bigint, b: number): -1 | 0 | 1 | undefined {
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
  if (v instanceof CelUint) return v.value;
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

function compareNanos(a: bigint, b: bigint): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True for the kinds of value cel-go can order (`traits.Comparer`). */
export function isComparable(v: unknown): boolean {
  return (
    typeof v === 'bigint' ||
    typeof v === 'number' ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    v instanceof CelUint ||
    v instanceof Uint8Array ||
    v instanceof Timestamp ||
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
    // NaN orders with nothing; cel-go reports such comparisons as not-less and not-greater.
    return compareNumbers(na, nb) ?? 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof Timestamp && b instanceof Timestamp) return compareNanos(a.ns, b.ns);
  if (a instanceof Duration && b instanceof Duration) return compareNanos(a.ns, b.ns);
  if (isLibraryValue(a) && isLibraryValue(b) && a.celTypeName === b.celTypeName) {
    const cmp = (a as { celCompare?: (o: unknown) => -1 | 0 | 1 }).celCompare;
    if (cmp) return cmp.call(a, b);
  }
  throw celError('no such overload');
}
