import { exactIntegersMarked, jsonTextExact, needsJsonEscape } from '../json/index.js';
import type { Operation } from '../jsonpatch/index.js';

/**
 * `JSON.stringify(patch)`, to the character, with less work for the usual reply patch (V8's
 * JSON.stringify costs ~3.5k instructions per operation of a short patch; this about half). Operations
 * `{op, path}` and `{op, path, value}` are written by concatenation, string members between plain
 * quotes; one test over all those strings at the end says whether any needs escaping, and then the whole
 * patch goes through JSON.stringify. Any other shape, and a value that is not a string, is JSON.stringify's
 * too, so the text is the same for every input, except that an integer marked exact is written with all
 * its digits.
 */
export function patchText(patch: readonly Operation[]): string {
  // An int64 past ±2^53 (marked exact: src/json/exact-integers.ts) is written with all its digits. Until
  // the process has seen one, nothing can carry such a mark.
  if (exactIntegersMarked()) return jsonTextExact(patch);
  let out = '[';
  // Every string written between plain quotes, for the one escape test.
  let raw = '';
  for (let i = 0; i < patch.length; i++) {
    const op = patch[i] as { op?: unknown; path?: unknown; value?: unknown };
    const members = plainMembers(op);
    if (members === 0) return JSON.stringify(patch);
    const name = op.op;
    const path = op.path;
    if (typeof name !== 'string' || typeof path !== 'string') return JSON.stringify(patch);
    raw += name + path;
    out += (i === 0 ? '{"op":"' : ',{"op":"') + name + '","path":"' + path;
    if (members === 2) {
      out += '"}';
      continue;
    }
    const value = op.value;
    if (typeof value === 'string') {
      raw += value;
      out += '","value":"' + value + '"}';
    } else if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
      // Left out by JSON.stringify.
      return JSON.stringify(patch);
    } else {
      out += '","value":' + JSON.stringify(value) + '}';
    }
  }
  return needsJsonEscape(raw) ? JSON.stringify(patch) : out + ']';
}

/**
 * 2 or 3 for a plain object whose enumerable members are `op`, `path` and maybe `value`, in that order
 * (as JSON.stringify lists them); 0 for anything else.
 */
function plainMembers(op: unknown): number {
  if (typeof op !== 'object' || op === null || Object.getPrototypeOf(op) !== Object.prototype) return 0;
  let n = 0;
  for (const key in op) if (key !== OPERATION_MEMBERS[n++]) return 0;
  return n >= 2 ? n : 0;
}

const OPERATION_MEMBERS = ['op', 'path', 'value'];
