import { copyNumberMark, hasNumberMarks } from './number-marks.js';
import { hasOwn, setOwn } from './own.js';
import type { JsonObject, JsonValue } from './types.js';

/** Deep copy of a JSON value (faster than structuredClone for plain data; `__proto__` keys stay data). */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    // A loop, not map: the policies' documents are frozen, and V8 maps frozen arrays several times slower.
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) out.push(cloneJson(value[i]));
    return out as T;
  }
  const out: JsonObject = {};
  for (const key in value) if (hasOwn(value, key)) setOwn(out, key, cloneJson((value as JsonObject)[key]));
  return out as T;
}

/**
 * cloneJson that also keeps the literal forms of the numbers (`1.0`, an exact int64 past ±2^53: see
 * number-marks.ts), for a copy that CEL reads, or the CLI prints, as it would the original.
 */
export function cloneJsonWithMarks<T extends JsonValue>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const marked = hasNumberMarks(value);
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      out.push(cloneJsonWithMarks(value[i]));
      if (marked && typeof value[i] === 'number') copyNumberMark(value, i, out, i);
    }
    return out as T;
  }
  const out: JsonObject = {};
  for (const key in value) {
    if (!hasOwn(value, key)) continue;
    const member = (value as JsonObject)[key];
    setOwn(out, key, cloneJsonWithMarks(member));
    if (marked && typeof member === 'number') copyNumberMark(value, key, out, key);
  }
  return out as T;
}

/**
 * A shallow copy that new keys can be added to cheaply. (In V8 an object made by spread becomes very
 * slow to extend, and `Object.assign` would run the `__proto__` setter for a `__proto__` key, hence the
 * key-by-key copy in that rare case.)
 */
export function shallowCopyObject(source: JsonObject): JsonObject {
  if (!hasOwn(source, '__proto__')) return Object.assign({}, source);
  const out: JsonObject = {};
  for (const key of Object.keys(source)) setOwn(out, key, source[key]);
  return out;
}

/**
 * `list.slice(start, end)`, also fast for a frozen array (a compiled policy's own): V8's `slice` copies
 * those an order of magnitude slower than a loop does.
 */
export function sliceArray<T>(list: readonly T[], start = 0, end = list.length): T[] {
  if (!Object.isFrozen(list)) return list.slice(start, end);
  const out: T[] = [];
  for (let i = start; i < end; i++) out.push(list[i]);
  return out;
}

/**
 * A shallow copy of an object for a walk that rewrites some of its members: the literal forms of its
 * numbers (number-marks.ts: a `1.0`, an int64 past ±2^53) go with the copy.
 */
export function shallowCopyWithMarks(source: JsonObject): JsonObject {
  const copy = shallowCopyObject(source);
  if (hasNumberMarks(source)) for (const key in copy) if (typeof copy[key] === 'number') copyNumberMark(source, key, copy, key);
  return copy;
}

/** {@link shallowCopyWithMarks} of a list. */
export function sliceArrayWithMarks(source: JsonValue[]): JsonValue[] {
  const copy = sliceArray(source);
  if (hasNumberMarks(source)) for (let i = 0; i < copy.length; i++) if (typeof copy[i] === 'number') copyNumberMark(source, i, copy, i);
  return copy;
}
