/**
 * How the Kyverno CLI compares a patched resource with the expected one (resource/tidy.go, compare.go):
 * both sides are tidied first — nulls, empty maps and empty lists removed, recursively, so `{}`, `[]` and
 * an absent field are the same — and then must be equal, numbers by value (`1` equals `1.0`), list order
 * significant; an int64 past ±2^53 by all its digits, as Go's decoder reads it.
 */
import { diffJson, type Difference } from '../diff.js';
import { copyNumberMark, getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';

/** The value without nulls, empty maps and empty lists (numbers as written); undefined when nothing is left. */
export function tidy(value: JsonValue): JsonValue | undefined {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const t = tidy(value[i]);
      if (t === undefined) continue;
      out.push(t);
      if (typeof t === 'number') copyNumberMark(value, i, out, out.length - 1);
    }
    return out.length === 0 ? undefined : out;
  }
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    let any = false;
    for (const key of Object.keys(value)) {
      const t = tidy(getOwn(value, key)!);
      if (t !== undefined) {
        setOwn(out, key, t);
        if (typeof t === 'number') copyNumberMark(value, key, out, key);
        any = true;
      }
    }
    return any ? out : undefined;
  }
  return value;
}

/** The differences between the tidied documents; [] when the Kyverno CLI would call them equal. */
export function compareTidy(expected: JsonValue, actual: JsonValue): Difference[] {
  // JSON numbers are doubles here as in Go's decoder, so `1` and `1.0` are already equal.
  return diffJson(tidy(expected) ?? {}, tidy(actual) ?? {});
}
