/**
 * The length of a value as JSON text, estimated (strings by UTF-16 length plus quotes, numbers as 8)
 * without writing it. Values built by JMESPath share subtrees — `[@, @]` nested n times is n small
 * arrays in memory but 2^n leaves as text — so the sizes of arrays and objects are remembered in
 * `memo` and a shared subtree is measured once. The walk stops as soon as the total passes `limit`
 * (the result is then some number above it), so measuring never costs more than the bound.
 */
import { hasOwn } from '../../json/index.js';
import type { ReviewGuard } from '../../guard/index.js';

export type SizeMemo = WeakMap<object, number>;

export function jsonSize(value: unknown, memo: SizeMemo, limit: number, guard?: ReviewGuard): number {
  if (value === null) return 4;
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return 8;
    case 'boolean':
      return 5;
    case 'object':
      break;
    default:
      return 4; // an expression reference escaping into a value is null
  }
  const known = memo.get(value);
  if (known !== undefined) return known;
  guard?.tick();
  let total = 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      total += jsonSize(item, memo, limit, guard) + 1;
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
  memo.set(value, total);
  return total;
}
