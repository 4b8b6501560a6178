/**
 * How deeply a value nests: a leaf 0, `[]` and `{}` 1, `[[]]` 2. Every walker of the engines recurses,
 * and a review can build values deeper than any it received (a JSON patch of n moves nests the object n
 * times, parse_json reads a deep string), so what one policy built is measured before the next walks it.
 */
import { hasOwn } from './own.js';

/**
 * The height of `value` when it is at most `limit`; some number above `limit` otherwise, found without
 * walking deeper than `limit + 1` levels (so without overflowing the stack on any value).
 */
export function heightUpTo(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  // A container here is one level; its members may have limit - 1 more.
  if (limit < 1) return 1;
  let tallest = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== 'object' || item === null) continue;
      const h = heightUpTo(item, limit - 1);
      if (h > tallest) tallest = h;
      if (tallest > limit - 1) break;
    }
  } else {
    const object = value as Record<string, unknown>;
    for (const key in object) {
      const member = object[key];
      if (typeof member !== 'object' || member === null || !hasOwn(object, key)) continue;
      const h = heightUpTo(member, limit - 1);
      if (h > tallest) tallest = h;
      if (tallest > limit - 1) break;
    }
  }
  return tallest + 1;
}

/**
 * Whether `value` nests deeper than `limit`, given `before`: an earlier version of it known to fit (the
 * object before a policy changed it). A subtree `value` holds at the same path as `before` did sits at
 * the same depth and fits as it did, so only what changed is walked: for an edit made by copying the
 * containers above it, their members, not the object. (A value changed in place would be missed:
 * values are not, once built.) `before` undefined: all of `value` is walked.
 */
export function nestsDeeperThan(value: unknown, before: unknown, limit: number): boolean {
  if (value === before || typeof value !== 'object' || value === null) return false;
  if (limit < 1) return true;
  const old = typeof before === 'object' && before !== null ? (before as Record<string, unknown>) : undefined;
  if (Array.isArray(value)) {
    const oldItems = Array.isArray(old) ? old : undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null && nestsDeeperThan(item, oldItems?.[i], limit - 1)) return true;
    }
    return false;
  }
  const oldMembers = old !== undefined && !Array.isArray(old) ? old : undefined;
  const object = value as Record<string, unknown>;
  // No own-property tests: for-in lists a JSON object's own members only (JSON objects inherit nothing
  // enumerable), and `before` serves only to skip identical subtrees; what an object inherits (a function,
  // or Object.prototype for `__proto__`) is no member of any JSON value, so reading it only means walking.
  for (const key in object) {
    const member = object[key];
    if (typeof member !== 'object' || member === null) continue;
    if (nestsDeeperThan(member, oldMembers?.[key], limit - 1)) return true;
  }
  return false;
}
