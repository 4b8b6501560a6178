/**
 * JSON documents as CEL values, converted lazily at the point of reading: objects are used as they are
 * (plain objects are CEL maps), numbers become int (integral, within int64, not written as a float
 * literal; exactly as written past ±2^53, src/json/exact-integers.ts) or double, and arrays get their
 * numbers and nested arrays converted once (cached by identity, documents are never mutated). A 4 KB Pod
 * costs nothing until an expression reads it.
 */
import { exactInteger, isFloatLiteral } from '../../json/index.js';

const converted = new WeakMap<readonly unknown[], unknown[]>();
const TWO_63 = 9223372036854775808;

/** A number read from a JSON container at `key`. */
function jsonNumber(container: object, key: string | number, n: number): bigint | number {
  // Past ±2^53 the number lost digits: the source's int64 literal, when it was one, is the value.
  if (!Number.isSafeInteger(n)) {
    const exact = exactInteger(container, key);
    if (exact !== undefined) return exact;
  }
  if (Number.isInteger(n) && n >= -TWO_63 && n < TWO_63 && !isFloatLiteral(container, key)) return BigInt(n);
  return n;
}

/** Converts a value just read from `container[key]` of a JSON document. */
export function readJson(container: object, key: string | number, v: unknown): any {
  if (typeof v === 'number') return jsonNumber(container, key, v);
  if (Array.isArray(v)) return jsonArray(v);
  return v;
}

/**
 * Lists up to this length that hold no number and no list are given back as they are without the cache:
 * scanning a few items costs less than a WeakMap lookup and insert, and every entry of a WeakMap that
 * outlives its documents is work for the garbage collector. Longer lists keep the cache (an expression
 * may read one per element of a comprehension).
 */
const SCAN_WITHOUT_CACHE = 8;

/** A JSON array as a CEL list (numbers and nested arrays converted; objects shared). */
export function jsonArray(arr: readonly unknown[]): unknown[] {
  if (arr.length <= SCAN_WITHOUT_CACHE && !holdsNumberOrList(arr)) return arr as unknown[];
  const cached = converted.get(arr);
  if (cached) return cached;
  let out: unknown[] | undefined;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (typeof v === 'number' || Array.isArray(v)) {
      out ??= arr.slice();
      out[i] = readJson(arr, i, v);
    }
  }
  const result = out ?? (arr as unknown[]);
  converted.set(arr, result);
  // The converted copy is itself a CEL list; mark it so it is not converted again.
  if (out) converted.set(out, out);
  return result;
}

function holdsNumberOrList(arr: readonly unknown[]): boolean {
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (typeof v === 'number' || Array.isArray(v)) return true;
  }
  return false;
}

/** A JSON value at the root of an activation (object, params, ...). */
export function jsonRoot(v: unknown): any {
  if (typeof v === 'number') return Number.isInteger(v) && v >= -TWO_63 && v < TWO_63 ? BigInt(v) : v;
  if (Array.isArray(v)) return jsonArray(v);
  return v;
}
