/**
 * The length of a value as JSON text, estimated (strings by UTF-16 length plus quotes, numbers as 8)
 * without writing it. Values built by JMESPath share subtrees — `[@, @]` nested n times is n small
 * arrays in memory but 2^n leaves as text — so the sizes of arrays and objects can be remembered in
 * `memo`, and a shared subtree is then measured once. The walk stops as soon as the total passes
 * `limit` (the result is then some number above it), so even without a memo measuring never costs
 * more than about `limit / 2` steps.
 */
import { hasOwn } from '../../json/index.js';
import type { ReviewGuard } from '../../guard/index.js';

/** Sizes of measured arrays and objects: a WeakMap, or a Map that lives no longer than the values it holds. */
export interface SizeMemo {
  get(value: object): number | undefined;
  set(value: object, size: number): unknown;
}

export function jsonSize(value: unknown, memo: SizeMemo | undefined, limit: number, guard?: ReviewGuard): number {
  if (typeof value === 'object' && value !== null) return containerSize(value, memo, limit, guard);
  return scalarSize(value);
}

function scalarSize(value: unknown): number {
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

/** An array or object; members that are strings (most of a document's leaves) are sized in the loop. */
function containerSize(value: object, memo: SizeMemo | undefined, limit: number, guard: ReviewGuard | undefined): number {
  const known = memo?.get(value);
  if (known !== undefined) return known;
  guard?.tick();
  let total = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      total += (typeof item === 'string' ? item.length + 2 : typeof item === 'object' && item !== null ? containerSize(item, memo, limit, guard) : scalarSize(item)) + 1;
      if (total > limit) return total; // partial: not remembered
    }
  } else {
    const object = value as Record<string, unknown>;
    for (const key in object) {
      if (!hasOwn(object, key)) continue;
      const member = object[key];
      total += key.length + 3 + (typeof member === 'string' ? member.length + 2 : typeof member === 'object' && member !== null ? containerSize(member, memo, limit, guard) : scalarSize(member));
      if (total > limit) return total;
    }
  }
  memo?.set(value, total);
  return total;
}

/** Digits (and sign) of an integer; 8 for other numbers (a guess: the bound is not that precise). */
function numberSize(n: number): number {
  if (!Number.isInteger(n)) return 8;
  let digits = n < 0 ? 2 : 1;
  for (let a = Math.abs(n); a >= 10 && digits < 24; a /= 10) digits++;
  return digits;
}
