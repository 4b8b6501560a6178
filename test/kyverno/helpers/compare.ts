/** The comparison modes of shared/vectors/kyverno/README.md. */
import { hasOwn, isJsonObject, jsonEqual, setOwn, type JsonObject, type JsonValue } from '../../../src/json/index.js';

/** Kyverno CLI "tidy": drop nulls, empty maps and empty lists, recursively. */
export function tidy(value: JsonValue): JsonValue | undefined {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(tidy).filter((v): v is JsonValue => v !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const t = tidy(v);
      if (t !== undefined) setOwn(out, k, t);
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}

export function tidyEqual(actual: JsonValue, expected: JsonValue): boolean {
  return jsonEqual(tidy(actual) ?? null, tidy(expected) ?? null);
}

/**
 * Chainsaw assertion: every key given in `expected` exists in `actual` with a matching value; maps may
 * have extra keys; lists must have the same length and match item by item.
 */
export function chainsawMatches(actual: JsonValue | undefined, expected: JsonValue): boolean {
  if (isJsonObject(expected)) {
    if (!isJsonObject(actual)) return false;
    return Object.keys(expected).every((k) => hasOwn(actual, k) && chainsawMatches(actual[k], expected[k]));
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => chainsawMatches(actual[i], e));
  }
  return jsonEqual(actual ?? null, expected);
}

/** Where two values first differ, for readable failures. */
export function firstDifference(actual: JsonValue | undefined, expected: JsonValue | undefined, path = ''): string | undefined {
  if (jsonEqual(actual ?? null, expected ?? null)) return undefined;
  if (isJsonObject(actual) && isJsonObject(expected)) {
    for (const k of new Set([...Object.keys(actual), ...Object.keys(expected)])) {
      const d = firstDifference(actual[k], expected[k], `${path}/${k}`);
      if (d) return d;
    }
  }
  if (Array.isArray(actual) && Array.isArray(expected) && actual.length === expected.length) {
    for (let i = 0; i < actual.length; i++) {
      const d = firstDifference(actual[i], expected[i], `${path}/${i}`);
      if (d) return d;
    }
  }
  return `${path || '/'}: got ${JSON.stringify(actual)}, want ${JSON.stringify(expected)}`;
}
