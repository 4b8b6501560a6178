/**
 * The length of a value as JSON text, estimated without writing it (the formula: src/json/size-estimate.ts).
 * Values built by JMESPath share subtrees — `[@, @]` nested n times is n small arrays in memory but 2^n
 * leaves as text — so the sizes of arrays and objects can be remembered in
 * `memo`, and a shared subtree is then measured once. The walk stops as soon as the total passes
 * `limit` (the result is then some number above it), so even without a memo measuring never costs
 * more than about `limit / 2` steps.
 */
import { estimatedScalarSize, hasOwn } from '../../json/index.js';
import type { ReviewGuard } from '../../guard/index.js';

/** Sizes of measured arrays and objects: a WeakMap, or a Map that lives no longer than the values it holds. */
export interface SizeMemo {
  get(value: object): number | undefined;
  set(value: object, size: number): unknown;
}

export function jsonSize(value: unknown, memo: SizeMemo | undefined, limit: number, guard?: ReviewGuard): number {
  // A string first: most of a document's leaves.
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'object' && value !== null) return containerSize(value, memo, limit, guard);
  return estimatedScalarSize(value);
}

/** An array or object (remembered in `memo` once measured whole). */
function containerSize(value: object, memo: SizeMemo | undefined, limit: number, guard: ReviewGuard | undefined): number {
  const known = memo?.get(value);
  if (known !== undefined) return known;
  guard?.tick();
  let total = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      total += jsonSize(value[i], memo, limit, guard) + 1;
      if (total > limit) return total; // partial: not remembered
    }
  } else {
    const object = value as Record<string, unknown>;
    for (const key in object) {
      if (!hasOwn(object, key)) continue;
      total += key.length + 3 + jsonSize(object[key], memo, limit, guard);
      if (total > limit) return total;
    }
  }
  memo?.set(value, total);
  return total;
}
