import { hasOwn, ownMember, type NumberMark } from '../json/index.js';
import type { JsonArray, JsonObject, JsonValue } from '../json/index.js';
import { parseGoInt, unescapeToken } from './pointer.js';
import { isContainer } from './working-copy.js';
import type { Location, WorkingCopy } from './working-copy.js';

/** The evanphx behaviour switches, resolved from ApplyOptions. */
export interface EvanphxRules {
  v5: boolean;
  supportNegativeIndices: boolean;
  allowMissingPathOnRemove: boolean;
  ensurePathExistsOnAdd: boolean;
  maxArrayPadding: number;
}

export function invalidIndex(text: string): string {
  return `Unable to access invalid index: ${text}: invalid index referenced`;
}

export type Child =
  | { ok: true; value: JsonValue | undefined; key: string | number }
  | { ok: false; error: string; missing: boolean };

/**
 * The library's container `get`: arrays take a Go `Atoi` index (negative from the end when enabled);
 * objects return their member — a missing one is an error in v5 and a nil node (undefined) in v4.
 */
export function getChild(c: JsonObject | JsonArray, key: string, rules: EvanphxRules): Child {
  if (Array.isArray(c)) {
    const n = parseGoInt(key);
    if (!n.ok) return { ok: false, error: n.error, missing: false };
    let index = n.value;
    if (index < 0) {
      if (!rules.supportNegativeIndices || index < -c.length) return { ok: false, error: invalidIndex(n.text), missing: false };
      index += c.length;
    }
    if (index >= c.length) return { ok: false, error: invalidIndex(n.text), missing: false };
    return { ok: true, value: c[index], key: index };
  }
  const value = ownMember(c, key);
  if (value !== undefined || hasOwn(c, key)) return { ok: true, value, key };
  if (rules.v5) return { ok: false, error: `unable to get nonexistent key: ${key}: missing value`, missing: true };
  return { ok: true, value: undefined, key };
}

export interface Found {
  loc: Location;
  /** The decoded last segment: an object key, or an index still to be parsed by the op. */
  key: string;
}

/**
 * The library's `findObject`: the container holding the path's last segment, or undefined when any
 * intermediate segment is missing, null, out of range or not a container. v5 reads `""` as the root
 * itself with key `""`; v4 finds nothing for it.
 */
export function findObject(root: JsonValue, path: string, rules: EvanphxRules): Found | undefined {
  if (!isContainer(root)) return undefined;
  const loc: Location = { chain: [root], keys: [] };
  // The pieces of `splitGoPath` (the first one dropped), read in place rather than split into an array.
  let start = path.indexOf('/') + 1;
  if (start === 0) return path === '' && rules.v5 ? { loc, key: '' } : undefined;
  const escaped = path.indexOf('~') >= 0;
  let cur: JsonObject | JsonArray = root;
  for (let end = path.indexOf('/', start); end >= 0; end = path.indexOf('/', start)) {
    const part = path.slice(start, end);
    const child = getChild(cur, escaped ? unescapeToken(part) : part, rules);
    if (!child.ok || !isContainer(child.value)) return undefined;
    cur = child.value;
    loc.chain.push(cur);
    loc.keys.push(child.key);
    start = end + 1;
  }
  const last = path.slice(start);
  return { loc, key: escaped ? unescapeToken(last) : last };
}

/**
 * The library's array `add`: `-` appends; an `Atoi` index may equal the length (append); a negative
 * one counts from the end of the array as it will be (`-1` appends). Returns the index used, or the
 * library's error text.
 */
export function arrayAdd(
  wc: WorkingCopy,
  loc: Location,
  key: string,
  value: JsonValue,
  mark: NumberMark,
  rules: EvanphxRules,
): number | string {
  const arr = loc.chain[loc.chain.length - 1] as JsonArray;
  let index: number;
  if (key === '-') {
    index = arr.length;
  } else {
    const n = parseGoInt(key);
    if (!n.ok) return `value was not a proper array index: '${key}': ${n.error}`;
    const size = arr.length + 1;
    index = n.value;
    if (index >= size) return invalidIndex(n.text);
    if (index < 0) {
      if (!rules.supportNegativeIndices || index < -size) return invalidIndex(n.text);
      index += size;
    }
  }
  wc.insertIndex(loc, index, value, mark);
  return index;
}
