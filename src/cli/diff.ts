import { exactIntegersMarked, getOwn, hasOwn, isJsonObject, jsonTextExact, sameExactInteger, type JsonValue } from '../json/index.js';

/** One difference between an expected and an actual document, at a JSON Pointer path. */
export interface Difference {
  path: string;
  /** Absent when the actual document has a value the expected one lacks. */
  expected?: JsonValue;
  /** Absent when the actual document lacks an expected value. */
  actual?: JsonValue;
  /**
   * The values as JSON text where that is not JSON.stringify's: with an integer past ±2^53 that its document
   * gave every digit of (marked exact).
   */
  expectedText?: string;
  actualText?: string;
}

/** Where a value sits (its container and key), to read the exact integer marked there; none at the top. */
type Slot = readonly [object, string | number] | undefined;

function exactText(value: JsonValue, slot: Slot): string | undefined {
  if (!exactIntegersMarked()) return undefined;
  const text = slot ? jsonTextExact(value, slot[0], slot[1]) : jsonTextExact(value);
  return text === JSON.stringify(value) ? undefined : text;
}

function difference(path: string, expected: JsonValue | undefined, eSlot: Slot, actual: JsonValue | undefined, aSlot: Slot): Difference {
  const d: Difference = { path };
  if (expected !== undefined) {
    d.expected = expected;
    const text = exactText(expected, eSlot);
    if (text !== undefined) d.expectedText = text;
  }
  if (actual !== undefined) {
    d.actual = actual;
    const text = exactText(actual, aSlot);
    if (text !== undefined) d.actualText = text;
  }
  return d;
}

function pointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * Every place where `actual` differs from `expected`, exactly: no normalisation (an empty map is not a
 * missing one, `1` is not `"1"`), key order ignored, list order significant. Lists of different lengths
 * are compared item by item and the surplus reported, so one inserted container reads as such. An
 * integer past ±2^53 is compared by every digit its document gave it (9007199254740993 is not …992).
 */
export function diffJson(expected: JsonValue, actual: JsonValue, path = ''): Difference[] {
  const out: Difference[] = [];
  walk(expected, undefined, actual, undefined, path, out);
  return out;
}

function walk(expected: JsonValue, eSlot: Slot, actual: JsonValue, aSlot: Slot, path: string, out: Difference[]): void {
  if (expected === actual) {
    if (typeof expected !== 'number' || !eSlot || !aSlot || sameExactInteger(eSlot[0], eSlot[1], aSlot[0], aSlot[1])) return;
    out.push(difference(path, expected, eSlot, actual, aSlot));
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const n = Math.max(expected.length, actual.length);
    for (let i = 0; i < n; i++) {
      const at = pointer(path, i);
      if (i >= actual.length) out.push(difference(at, expected[i], [expected, i], undefined, undefined));
      else if (i >= expected.length) out.push(difference(at, undefined, undefined, actual[i], [actual, i]));
      else walk(expected[i], [expected, i], actual[i], [actual, i], at, out);
    }
    return;
  }
  if (isJsonObject(expected) && isJsonObject(actual)) {
    for (const key of Object.keys(expected)) {
      const at = pointer(path, key);
      if (!hasOwn(actual, key)) out.push(difference(at, getOwn(expected, key), [expected, key], undefined, undefined));
      else walk(getOwn(expected, key)!, [expected, key], getOwn(actual, key)!, [actual, key], at, out);
    }
    for (const key of Object.keys(actual)) {
      if (!hasOwn(expected, key)) out.push(difference(pointer(path, key), undefined, undefined, getOwn(actual, key), [actual, key]));
    }
    return;
  }
  out.push(difference(path, expected, eSlot, actual, aSlot));
}

function show(value: JsonValue, text: string | undefined): string {
  const shown = text ?? JSON.stringify(value);
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
}

/** The differences as lines a person can read: `path: expected X, got Y`. */
export function formatDifferences(diffs: readonly Difference[], indent = '  '): string {
  return diffs
    .map((d) => {
      const at = d.path === '' ? '(whole document)' : d.path;
      if (d.actual === undefined) return `${indent}${at}: missing, expected ${show(d.expected!, d.expectedText)}`;
      if (d.expected === undefined) return `${indent}${at}: unexpected ${show(d.actual, d.actualText)}`;
      return `${indent}${at}: expected ${show(d.expected, d.expectedText)}, got ${show(d.actual, d.actualText)}`;
    })
    .join('\n');
}
