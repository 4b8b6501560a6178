/**
 * The estimate of a value's length as JSON text that Kyverno's size bound uses (src/kyverno/measure.ts):
 * strings by UTF-16 length plus quotes, integers by their digits (and sign), other numbers as 8, booleans
 * 5, null 4; an object 2 plus, per member, its key's length plus 3 and its value's size; an array 2 plus,
 * per item, its size plus 1. One formula for every walk that computes it (Kyverno's measures and
 * JMESPath's, and the strategic merge's normalizing walk, which hands the sizes it found to a measure's
 * memo), so that the sizes agree wherever they were computed.
 */

import { hasOwn } from './own.js';

/** Sizes of measured arrays and objects: a WeakMap, or a Map that lives no longer than the values it holds. */
export interface SizeMemo {
  get(value: object): number | undefined;
  set(value: object, size: number): unknown;
}

/** The estimate for a string, number, boolean or null (anything else that is not a container counts as null). */
export function estimatedLeafSize(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return numberSize(value);
    case 'boolean':
      return 5;
    default:
      return 4; // null, or an expression reference escaping into a value (written as null)
  }
}

/** Digits (and sign) of an integer; 8 for other numbers (a guess: the bound is not that precise). */
function numberSize(n: number): number {
  if (!Number.isInteger(n)) return 8;
  let digits = n < 0 ? 2 : 1;
  for (let a = Math.abs(n); a >= 10 && digits < 24; a /= 10) digits++;
  return digits;
}

/**
 * The estimate of `value`: exact up to `limit`, some number above `limit` once past it (the walk stops
 * there). Arrays and objects measured whole are remembered in `memo` when given, and found there again
 * (values that share subtrees then cost one walk of each). `ticker.tick()` once per array or object
 * walked (a review guard's deadline).
 */
export function estimatedSize(value: unknown, memo: SizeMemo | undefined, limit: number, ticker?: { tick(): void }): number {
  // A string first: most of a document's leaves.
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'object' && value !== null) return containerSize(value, memo, limit, ticker);
  return estimatedLeafSize(value);
}

function containerSize(value: object, memo: SizeMemo | undefined, limit: number, ticker: { tick(): void } | undefined): number {
  const known = memo?.get(value);
  if (known !== undefined) return known;
  ticker?.tick();
  let total = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      // A string (most leaves) without a call.
      total += (typeof item === 'string' ? item.length + 2 : estimatedSize(item, memo, limit, ticker)) + 1;
      if (total > limit) return total; // partial: not remembered
    }
  } else {
    const object = value as Record<string, unknown>;
    for (const key in object) {
      if (!hasOwn(object, key)) continue;
      const member = object[key];
      total += key.length + 3 + (typeof member === 'string' ? member.length + 2 : estimatedSize(member, memo, limit, ticker));
      if (total > limit) return total;
    }
  }
  memo?.set(value, total);
  return total;
}
