/**
 * The estimate of a value's length as JSON text that Kyverno's size bound uses (src/kyverno/measure.ts):
 * strings by UTF-16 length plus quotes, integers by their digits (and sign), other numbers as 8, booleans
 * 5, null 4; an object 2 plus, per member, its key's length plus 3 and its value's size; an array 2 plus,
 * per item, its size plus 1. One formula for every walk that computes it (the measure's, with its memo,
 * and the strategic merge's normalizing walk, which hands the sizes it found to that memo), so that
 * the sizes agree wherever they were computed.
 */

/** The estimate for a number, boolean or null (anything else that is not a string or container counts as null). */
export function estimatedScalarSize(value: unknown): number {
  switch (typeof value) {
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
 * The estimate of `value` without memo: exact up to `limit`, some number above `limit` once past it
 * (the walk stops there). `ticker.tick()` once per array or object (a review guard's deadline).
 */
export function estimatedSizeUpTo(value: unknown, limit: number, ticker?: { tick(): void }): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value !== 'object' || value === null) return estimatedScalarSize(value);
  ticker?.tick();
  let total = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      total += estimatedSizeUpTo(value[i], limit, ticker) + 1;
      if (total > limit) return total;
    }
    return total;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    if (!Object.prototype.hasOwnProperty.call(object, key)) continue;
    total += key.length + 3 + estimatedSizeUpTo(object[key], limit, ticker);
    if (total > limit) return total;
  }
  return total;
}
