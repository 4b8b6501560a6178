/**
 * How the Kyverno CLI compares a patched resource with the expected one (resource/tidy.go, compare.go):
 * both sides are tidied first — nulls, empty maps and empty lists removed, recursively, so `{}`, `[]` and
 * an absent field are the same — and then must be equal, numbers by value (`1` equals `1.0`), list order
 * significant; an int64 past ±2^53 by all its digits, as Go's decoder reads it. Before that, both sides'
 * labels are fixed up as the CLI fixes them (withKyvernoLabels).
 */
import { diffJson, type Difference } from '../diff.js';
import { cloneJsonWithMarks, copyNumberMark, getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';

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

const MANAGED_BY = 'app.kubernetes.io/managed-by';

/**
 * A copy of `value` with its labels as the Kyverno CLI sets them on both sides before comparing
 * (resource/labels.go FixupGenerateLabels, called by commands/test/compare.go): `generate.kyverno.io/*`
 * labels dropped and `app.kubernetes.io/managed-by: kyverno` added unless the object has its own, so that
 * neither decides a comparison. Labels that are not all strings read as none (unstructured GetLabels).
 */
export function withKyvernoLabels(value: JsonValue): JsonValue {
  if (!isJsonObject(value)) return value;
  const copy = cloneJsonWithMarks(value);
  let metadata = getOwn(copy, 'metadata');
  if (metadata === undefined || metadata === null) {
    metadata = {};
    setOwn(copy, 'metadata', metadata);
  }
  if (!isJsonObject(metadata)) return copy;
  const labels: JsonObject = {};
  setOwn(labels, MANAGED_BY, 'kyverno');
  const own = getOwn(metadata, 'labels');
  if (isJsonObject(own) && Object.keys(own).every((k) => typeof getOwn(own, k) === 'string')) {
    for (const key of Object.keys(own)) if (!key.startsWith('generate.kyverno.io/')) setOwn(labels, key, getOwn(own, key)!);
  }
  setOwn(metadata, 'labels', labels);
  return copy;
}
