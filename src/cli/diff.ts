import { getOwn, hasOwn, isJsonObject, type JsonValue } from '../json/index.js';

/** One difference between an expected and an actual document, at a JSON Pointer path. */
export interface Difference {
  path: string;
  /** Absent when the actual document has a value the expected one lacks. */
  expected?: JsonValue;
  /** Absent when the actual document lacks an expected value. */
  actual?: JsonValue;
}

function pointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * Every place where `actual` differs from `expected`, exactly: no normalisation (an empty map is not a
 * missing one, `1` is not `"1"`), key order ignored, list order significant. Lists of different lengths
 * are compared item by item and the surplus reported, so one inserted container reads as such.
 */
export function diffJson(expected: JsonValue, actual: JsonValue, path = ''): Difference[] {
  const out: Difference[] = [];
  walk(expected, actual, path, out);
  return out;
}

function walk(expected: JsonValue, actual: JsonValue, path: string, out: Difference[]): void {
  if (expected === actual) return;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const n = Math.max(expected.length, actual.length);
    for (let i = 0; i < n; i++) {
      const at = pointer(path, i);
      if (i >= actual.length) out.push({ path: at, expected: expected[i] });
      else if (i >= expected.length) out.push({ path: at, actual: actual[i] });
      else walk(expected[i], actual[i], at, out);
    }
    return;
  }
  if (isJsonObject(expected) && isJsonObject(actual)) {
    for (const key of Object.keys(expected)) {
      const at = pointer(path, key);
      if (!hasOwn(actual, key)) out.push({ path: at, expected: getOwn(expected, key) });
      else walk(getOwn(expected, key)!, getOwn(actual, key)!, at, out);
    }
    for (const key of Object.keys(actual)) {
      if (!hasOwn(expected, key)) out.push({ path: pointer(path, key), actual: getOwn(actual, key) });
    }
    return;
  }
  out.push({ path, expected, actual });
}

function show(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The differences as lines a person can read: `path: expected X, got Y`. */
export function formatDifferences(diffs: readonly Difference[], indent = '  '): string {
  return diffs
    .map((d) => {
      const at = d.path === '' ? '(whole document)' : d.path;
      if (d.actual === undefined) return `${indent}${at}: missing, expected ${show(d.expected!)}`;
      if (d.expected === undefined) return `${indent}${at}: unexpected ${show(d.actual)}`;
      return `${indent}${at}: expected ${show(d.expected)}, got ${show(d.actual)}`;
    })
    .join('\n');
}
