/**
 * How deeply a value nests: a leaf 0, `[]` and `{}` 1, `[[]]` 2. Every walker of the engines recurses,
 * and a review can build values deeper than any it received (a JSON patch of n moves nests the object n
 * times, parse_json reads a deep string), so what one policy built is measured before the next walks it.
 */
import { hasOwn } from './own.js';

/**
 * Heights of arrays and objects walked whole (a WeakMap, or a Map that lives no longer than the values
 * it holds): values are never changed in place, so a height stays true.
 */
export interface HeightMemo {
  get(value: object): number | undefined;
  set(value: object, height: number): unknown;
}

/**
 * The height of `value` when it is at most `limit`; some number above `limit` otherwise, found without
 * walking deeper than `limit + 1` levels (so without overflowing the stack on any value). Subtrees found
 * in `memo` are not walked again, and those walked whole are added to it.
 */
export function heightUpTo(value: unknown, limit: number, memo?: HeightMemo): number {
  if (typeof value !== 'object' || value === null) return 0;
  const known = memo?.get(value);
  if (known !== undefined) return known;
  // A container here is one level; its members may have limit - 1 more.
  if (limit < 1) return 1;
  let tallest = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== 'object' || item === null) continue;
      const h = heightUpTo(item, limit - 1, memo);
      if (h > tallest) tallest = h;
      if (tallest > limit - 1) return tallest + 1;
    }
  } else {
    const object = value as Record<string, unknown>;
    for (const key in object) {
      const member = object[key];
      if (typeof member !== 'object' || member === null || !hasOwn(object, key)) continue;
      const h = heightUpTo(member, limit - 1, memo);
      if (h > tallest) tallest = h;
      if (tallest > limit - 1) return tallest + 1;
    }
  }
  memo?.set(value, tallest + 1);
  return tallest + 1;
}
