import { hasOwn } from './own.js';
import type { JsonObject, JsonValue } from './types.js';

/** Structural equality of JSON values: key order does not matter, list order does. */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  // Counted in for-in loops rather than with Object.keys: no key arrays built (the dispatcher compares
  // each mutated object with the one before, along the spine of copied containers).
  let count = 0;
  for (const key in a) {
    if (!hasOwn(a, key)) continue;
    if (!hasOwn(b, key) || !jsonEqual((a as JsonObject)[key], (b as JsonObject)[key])) return false;
    count++;
  }
  for (const key in b) if (hasOwn(b, key)) count--;
  return count === 0;
}
