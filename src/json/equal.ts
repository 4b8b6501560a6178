import { sameExactInteger } from './exact-integers.js';
import { hasOwn } from './own.js';
import type { JsonObject, JsonValue } from './types.js';

/**
 * Structural equality of JSON values: key order does not matter, list order does. Two equal numbers of
 * which one stands for another exact integer (an int64 past ±2^53, exact-integers.ts) differ.
 */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const av = a[i];
      const bv = b[i];
      // Identical items (shared subtrees, equal scalars: most of them) without a call.
      if (av === bv ? typeof av === 'number' && !sameExactInteger(a, i, b, i) : !jsonEqual(av, bv)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  // for-in rather than Object.keys: no key arrays built (the dispatcher compares each mutated object with
  // the one before, along the spine of copied containers). JSON objects inherit nothing enumerable, so
  // for-in lists own members only. The members are counted first: an added or removed member answers
  // without reading any value. A member `b` lacks reads as undefined or as something inherited: a
  // function, which equals no JSON value, or for `__proto__` Object.prototype; those two cases take the
  // own-property test.
  let count = 0;
  for (const _ in a) count++;
  for (const _ in b) count--;
  if (count !== 0) return false;
  for (const key in a) {
    const bv = (b as JsonObject)[key];
    if ((bv === undefined || key === '__proto__') && !hasOwn(b, key)) return false;
    const av = (a as JsonObject)[key];
    if (av === bv ? typeof av === 'number' && !sameExactInteger(a, key, b, key) : !jsonEqual(av, bv)) return false;
  }
  return true;
}
