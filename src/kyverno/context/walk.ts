/**
 * Copy-on-write rewriting of the strings of a JSON document, keys included (Kyverno substitutes
 * variables in map keys too). Untouched subtrees keep their identity, so an unchanged document comes
 * back as the very same object. The callback sees the path of the string as a stack of segments.
 */
import { setOwn, sliceArray, type JsonObject, type JsonValue } from '../../json/index.js';
import { KyvernoRuleError } from '../errors.js';

export type StringRewrite = (text: string, path: readonly string[]) => JsonValue;

/**
 * `deepTest(test)`: does any string or map key anywhere in a document pass `test`? Verdicts on frozen
 * subtrees (the compiled policies' documents, evaluated again and again) are remembered, so their
 * parts that cannot match are skipped without walking them.
 */
export function deepTest(test: (text: string) => boolean): (value: JsonValue) => boolean {
  const verdicts = new WeakMap<object, boolean>();
  const check = (value: JsonValue): boolean => {
    if (typeof value === 'string') return test(value);
    if (typeof value !== 'object' || value === null) return false;
    const known = verdicts.get(value);
    if (known !== undefined) return known;
    let found = false;
    if (Array.isArray(value)) {
      // An index loop, not for-of: frozen arrays (a policy's) are iterated slowly by V8's for-of.
      for (let i = 0; i < value.length; i++) if (check(value[i])) found = true;
    } else {
      for (const key of Object.keys(value)) if (test(key) || check(value[key])) found = true;
    }
    if (Object.isFrozen(value)) verdicts.set(value, found);
    return found;
  };
  return check;
}

/** Might the document hold a `{{ }}` variable or a `$()` reference? */
export const mayHaveVariables = deepTest((s) => s.includes('{{') || s.includes('$('));

/** Rewrites every string that `interesting` selects; `rewrite` may return any JSON value for a leaf. */
export function rewriteStrings(document: JsonValue, interesting: (s: string) => boolean, rewrite: StringRewrite): JsonValue {
  const path: string[] = [];
  const visit = (value: JsonValue): JsonValue => {
    if (typeof value === 'string') return interesting(value) ? rewrite(value, path) : value;
    if (typeof value !== 'object' || value === null) return value;
    if (!mayHaveVariables(value)) return value;
    if (Array.isArray(value)) {
      let out: JsonValue[] | undefined;
      for (let i = 0; i < value.length; i++) {
        path.push(String(i));
        const next = visit(value[i]);
        path.pop();
        if (next !== value[i] && !out) out = sliceArray(value, 0, i);
        if (out) out.push(next);
      }
      return out ?? value;
    }
    const keys = Object.keys(value);
    let out: JsonObject | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      let newKey = key;
      if (interesting(key)) {
        const k = rewrite(key, path);
        // pkg/engine/jsonutils traverseObject: a key that substitutes to null keeps its own text; any other
        // value that is no string fails with its message.
        if (typeof k === 'string') newKey = k;
        else if (k !== null) throw new KyvernoRuleError(`expected string after substituting variables in key "${key}"`);
      }
      path.push(key);
      const child = value[key];
      const next = visit(child);
      path.pop();
      if ((next !== child || newKey !== key) && !out) {
        out = {};
        for (let j = 0; j < i; j++) setOwn(out, keys[j], value[keys[j]]);
      }
      if (out) setOwn(out, newKey, next);
    }
    return out ?? value;
  };
  return visit(document);
}
