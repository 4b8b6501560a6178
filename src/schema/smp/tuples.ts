/**
 * Merge-key tuples of keyed-list items, and an index that finds the items a tuple names in constant
 * time with kyaml's matching rule (validateKeys): an item matches a tuple when it has every key value
 * the tuple sets (keys the tuple leaves empty match anything). Key values compare as YAML scalar text.
 */
import { isJsonObject, ownMember, type JsonValue } from '../../json/index.js';

/** One string per merge key: the item's value as scalar text, '' where the item has none. */
export type Tuple = readonly string[];

/** kyaml compares key values as YAML scalar text: 80 and "80" name the same item. */
export function scalarText(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? '' : String(v);
}

/**
 * The key values of a map item (empty strings where missing); undefined for anything else. (Read through
 * ownMember: an item nearly always has its keys, and a present member costs a plain read.)
 */
export function objectTuple(item: JsonValue, keys: readonly string[]): string[] | undefined {
  if (!isJsonObject(item)) return undefined;
  const t: string[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) t[i] = scalarText(ownMember(item, keys[i]));
  return t;
}

/** The item's key values, or undefined when it is not a map or sets none of the keys. */
export function keyTuple(item: JsonValue, keys: readonly string[]): string[] | undefined {
  const t = objectTuple(item, keys);
  if (t === undefined) return undefined;
  for (let i = 0; i < t.length; i++) if (t[i] !== '') return t;
  return undefined;
}

/** `tupleId(keyTuple(item, keys))`, or undefined where keyTuple is; a single key's id needs no tuple. */
export function keyId(item: JsonValue, keys: readonly string[]): string | undefined {
  if (keys.length !== 1) {
    const t = keyTuple(item, keys);
    return t === undefined ? undefined : tupleId(t);
  }
  if (!isJsonObject(item)) return undefined;
  const text = scalarText(ownMember(item, keys[0]));
  return text === '' ? undefined : text;
}

/** Does the tuple set every key? Then matching it is plain equality. */
export function isFull(t: Tuple): boolean {
  for (let i = 0; i < t.length; i++) if (t[i] === '') return false;
  return true;
}

/** A string naming the tuple exactly (length-prefixed parts, so no value can fake a separator). */
export function tupleId(t: Tuple): string {
  if (t.length === 1) return t[0];
  let id = '';
  for (let i = 0; i < t.length; i++) id += `${t[i].length}:${t[i]}`;
  return id;
}

/** kyaml validateKeys: does the item (its tuple; undefined for a non-map) have every value `tuple` sets? */
export function tupleMatches(itemTuple: Tuple | undefined, tuple: Tuple): boolean {
  if (itemTuple === undefined) return false;
  for (let i = 0; i < tuple.length; i++) if (tuple[i] !== '' && itemTuple[i] !== tuple[i]) return false;
  return true;
}

/**
 * Calls `found` with the id of every projection of `t` onto a non-empty strict subset of the keys it
 * sets, until it returns true (what a partial tuple of kyaml's matches against).
 */
export function someStrictProjection(t: Tuple, found: (id: string) => boolean): boolean {
  const set: number[] = [];
  for (let i = 0; i < t.length; i++) if (t[i] !== '') set.push(i);
  if (set.length < 2) return false;
  const projection: string[] = new Array(t.length);
  for (let mask = 1; mask < (1 << set.length) - 1; mask++) {
    projection.fill('');
    for (let b = 0; b < set.length; b++) if (mask & (1 << b)) projection[set[b]] = t[set[b]];
    if (found(tupleId(projection))) return true;
  }
  return false;
}

/**
 * Positions of items by the tuples they match. An item is filed under every tuple made of a non-empty
 * subset of the values it sets (2^k - 1 entries for k keys; merge keys are one to three fields), so the
 * tuple of a lookup is a single Map key. A bucket of one position is stored as that number.
 */
export class TupleIndex {
  private readonly buckets = new Map<string, number | number[]>();

  add(at: number, tuple: Tuple): void {
    if (tuple.length === 1) {
      if (tuple[0] !== '') this.file(tuple[0], at);
      return;
    }
    const set: number[] = [];
    for (let i = 0; i < tuple.length; i++) if (tuple[i] !== '') set.push(i);
    const projection: string[] = new Array(tuple.length);
    for (let mask = 1; mask < 1 << set.length; mask++) {
      projection.fill('');
      for (let b = 0; b < set.length; b++) if (mask & (1 << b)) projection[set[b]] = tuple[set[b]];
      this.file(tupleId(projection), at);
    }
  }

  /** The first position filed under `tuple`, or -1. */
  first(tuple: Tuple): number {
    const bucket = this.buckets.get(tupleId(tuple));
    if (bucket === undefined) return -1;
    return typeof bucket === 'number' ? bucket : bucket[0];
  }

  /**
   * Calls `visit` with the positions filed under `tuple` in the order they were added (those filed
   * during the visit excluded) until it returns true. Entries may be stale when an item's tuple changed
   * since: callers re-check.
   */
  some(tuple: Tuple, visit: (at: number) => boolean): boolean {
    const bucket = this.buckets.get(tupleId(tuple));
    if (bucket === undefined) return false;
    if (typeof bucket === 'number') return visit(bucket);
    for (let i = 0, count = bucket.length; i < count; i++) if (visit(bucket[i])) return true;
    return false;
  }

  private file(id: string, at: number): void {
    const bucket = this.buckets.get(id);
    if (bucket === undefined) this.buckets.set(id, at);
    else if (typeof bucket === 'number') this.buckets.set(id, [bucket, at]);
    else bucket.push(at);
  }
}

/**
 * kyaml's mergeValues (walk/associative_sequence.go), run over the distinct tuples of both sides when a
 * list has several merge keys: two tuples that share a value and differ only where one of them is empty
 * both become their union, pair by pair in kyaml's order (the first of a pair as it stood when its turn
 * came). So a port without `protocol` next to the same port with one is looked up as the full tuple, and
 * the item lacking the protocol is found by no tuple. Duplicates it makes are kept: kyaml walks each.
 * Pairs of two full tuples change nothing and are skipped, so the work is (partial tuples) x (all).
 */
export function mergeValues(tuples: readonly Tuple[]): Tuple[] {
  if (tuples.length > 0 && tuples[0].length === 2) return mergeValuesOfPairs(tuples);
  const out = tuples.slice();
  const partial: number[] = [];
  for (let i = 0; i < out.length; i++) if (!isFull(out[i])) partial.push(i);
  if (partial.length === 0) return out;
  // A full tuple stays full in any union: with a full first, only the tuples partial at the start matter.
  const match = (i: number, first: Tuple, j: number) => {
    const union = unionIfMatching(first, out[j]);
    if (union !== undefined) {
      out[i] = union;
      out[j] = union;
    }
  };
  for (let i = 0; i < out.length; i++) {
    const first = out[i];
    if (isFull(first)) for (const j of partial) match(i, first, j);
    else for (let j = 0; j < out.length; j++) match(i, first, j);
  }
  return out;
}

/** kyaml's match: one equal value at least, and no position where both are set and differ. */
function unionIfMatching(a: Tuple, b: Tuple): Tuple | undefined {
  let common = false;
  const res: string[] = new Array(a.length);
  for (let k = 0; k < a.length; k++) {
    if (a[k] === b[k]) {
      common = true;
      res[k] = a[k];
    } else if (a[k] !== '' && b[k] !== '') return undefined;
    else res[k] = a[k] !== '' ? a[k] : b[k];
  }
  return common ? res : undefined;
}

/**
 * mergeValues for two keys (ports, a Service's ports, topology spread constraints) in linear time. The
 * tuples are distinct and none is empty, so two match only through an equal value at one place: a
 * partial [a, ''] matches the full tuples [a, x], a full one completes the one partial [a, ''] or
 * ['', b] holding one of its values, and full tuples change nothing. At a partial tuple's turn it takes
 * the last (by place) full tuple sharing its value, as kyaml's loop leaves it; at a full tuple's turn the
 * partial ones it matches take it.
 */
function mergeValuesOfPairs(tuples: readonly Tuple[]): Tuple[] {
  const out = tuples.slice();
  // The partial tuple holding a value at a place (one at most: the tuples are distinct), by `${place}:${value}`.
  const partialAt = new Map<string, number>();
  // The last place of a full tuple holding a value at a place.
  const lastFull = new Map<string, number>();
  const registerFull = (i: number) => {
    for (let k = 0; k < 2; k++) {
      const key = `${k}:${out[i][k]}`;
      if ((lastFull.get(key) ?? -1) < i) lastFull.set(key, i);
    }
  };
  for (let i = 0; i < out.length; i++) {
    const t = out[i];
    if (isFull(t)) registerFull(i);
    else partialAt.set(t[0] !== '' ? `0:${t[0]}` : `1:${t[1]}`, i);
  }
  if (partialAt.size === 0) return out;
  for (let i = 0; i < out.length; i++) {
    const first = out[i];
    if (isFull(first)) {
      for (let k = 0; k < 2; k++) {
        const key = `${k}:${first[k]}`;
        const j = partialAt.get(key);
        if (j === undefined || isFull(out[j])) continue;
        out[j] = first;
        partialAt.delete(key);
        registerFull(j);
      }
      continue;
    }
    const key = first[0] !== '' ? `0:${first[0]}` : `1:${first[1]}`;
    const j = lastFull.get(key);
    if (j === undefined) continue;
    out[i] = out[j];
    partialAt.delete(key);
    registerFull(i);
  }
  return out;
}
