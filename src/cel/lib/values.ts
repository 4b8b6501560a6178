import {
  celCompare as engineCompare,
  celEquals as engineEquals,
  compareStrings as engineCompareStrings,
  mapGet,
  mapKeys,
  typeNameOf,
} from '../engine/runtime.js';
import { CelUint, Duration, Timestamp, isMapValue, type CelMapValue } from '../engine/values.js';
import { noSuchOverload } from './errors.js';

/**
 * Runtime helpers over the engine's values (src/cel/engine/values.ts) for the libraries: list and
 * map access, sizes, and the ordering cel-go's `Compare` gives the comparable types.
 */

export { UINT64_MAX } from '../engine/values.js';
export { checkInt } from '../engine/stdlib.js';

export function isList(v: unknown): v is readonly unknown[] {
  return Array.isArray(v);
}

export function listItems(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  throw noSuchOverload();
}

export const isMap: (v: unknown) => v is CelMapValue = isMapValue;

/** A map's entries, with values read as CEL values (JSON numbers become int or double). */
export function mapEntries(v: unknown): [unknown, unknown][] {
  const m = v as CelMapValue;
  return mapKeys(m).map((k) => [k, mapGet(m, k)]);
}

/** cel-go's type name of a runtime value, as error messages print it. */
export const celTypeName: (v: unknown) => string = typeNameOf;

/** CEL equality (cel-go heterogeneous equality): never throws, values of different kinds differ. */
export const celEquals: (a: unknown, b: unknown) => boolean = engineEquals;

/** Compares strings by Unicode code point (Go's byte-wise UTF-8 order), not by UTF-16 unit. */
export const compareStrings: (a: string, b: string) => -1 | 0 | 1 = engineCompareStrings;

/**
 * True for the kinds of value cel-go can order (`traits.Comparer`). No Kubernetes library type is one:
 * a quantity or a semver orders only through its own methods (`isLessThan`, `compareTo`).
 */
export function isComparable(v: unknown): boolean {
  return (
    typeof v === 'bigint' ||
    typeof v === 'number' ||
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    v instanceof CelUint ||
    v instanceof Uint8Array ||
    v instanceof Timestamp ||
    v instanceof Duration
  );
}

/**
 * Orders two comparable values as cel-go's `Compare` does (numbers across int/uint/double); throws
 * `no such overload` for values of kinds that cannot be compared with each other.
 */
export function compareValues(a: unknown, b: unknown): -1 | 0 | 1 {
  // NaN orders with nothing; cel-go reports such comparisons as not-less and not-greater (0 here).
  return (engineCompare(a, b) || 0) as -1 | 0 | 1;
}
