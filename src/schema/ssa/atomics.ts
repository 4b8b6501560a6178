import { isJsonObject, type JsonValue } from '../../json/index.js';
import { resolve, type TypeRef } from '../types.js';
import { renderPath, type PathStep } from './keys.js';

/**
 * The paths of every atomic list, map or struct an apply configuration sets (kube-apiserver's
 * `findAtomics` in mutating/patch/smd.go): a MutatingAdmissionPolicy may only merge, and setting an atomic
 * value would replace it whole. Only declared struct fields and list elements are descended into, so the
 * values inside a plain map (labels, a preserve-unknown-fields object) are not inspected. List elements
 * are named by index, as the API server does.
 */
export function findAtomics(value: JsonValue, type: TypeRef): string[] {
  const out: string[] = [];
  walk(value, type, [], out);
  return out;
}

/** `steps`: the path so far, rendered only for the atomic values found. */
function walk(v: JsonValue, type: TypeRef, steps: PathStep[], out: string[]): void {
  const atom = resolve(type);
  if (isJsonObject(v) && atom.map) {
    if (atom.map.atomic) out.push(renderPath(steps));
    const fields = atom.map.fields;
    if (fields) {
      // for-in rather than Object.keys: no key array (JSON objects inherit nothing enumerable).
      for (const key in v) {
        const field = fields.get(key);
        if (!field) continue;
        steps.push(key);
        walk(v[key], field.type, steps, out);
        steps.pop();
      }
    }
  }
  if (Array.isArray(v) && atom.list) {
    if (atom.list.listType === 'atomic') out.push(renderPath(steps));
    for (let i = 0; i < v.length; i++) {
      steps.push(i);
      walk(v[i], atom.list.elem, steps, out);
      steps.pop();
    }
  }
}
