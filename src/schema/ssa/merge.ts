import { isJsonObject, setOwn, type JsonArray, type JsonObject, type JsonValue } from '../../json/index.js';
import { resolve, type Atom, type ListDef, type MapDef, type TypeRef } from '../types.js';
import { associativeItemKey, fieldElement } from './keys.js';
import { firstPart, matchingPart, scalarError, type Part, type SmdError } from './validate.js';

/**
 * structured-merge-diff's `live.Merge(patch)` (typed/merge.go, no field managers): structs and granular
 * maps are unions (patch wins for scalars), atomic values and scalars are replaced, associative lists are
 * merged item by item in SMD's order, sets are unions. Inputs are never modified; the result shares the
 * subtrees that the patch does not touch with `live` (treat it as immutable like every document).
 *
 * Duplicate keys in `live` are tolerated (the API server converts the live object with AllowDuplicates):
 * untouched duplicates stay, a key the patch names collapses into the one patch item.
 */
export function smdMerge(live: JsonValue, patch: JsonValue, type: TypeRef): { value?: JsonValue; errors: SmdError[] } {
  const errors: SmdError[] = [];
  const value = mergeValue(live, patch, type, '', errors);
  return { value, errors };
}

type Side = JsonValue | undefined;

/** The atom part SMD's deduceAtom gives, or 'full' when an untyped value matches none of several parts. */
function deduced(atom: Atom, v: Side): Part | 'full' {
  const matched = matchingPart(atom, v);
  if (matched) return matched;
  const parts = (atom.map ? 1 : 0) + (atom.scalar ? 1 : 0) + (atom.list ? 1 : 0);
  return parts === 1 ? firstPart(atom)! : 'full';
}

function mergeValue(lhs: Side, rhs: Side, type: TypeRef, path: string, errors: SmdError[]): Side {
  if (lhs === undefined && rhs === undefined) {
    errors.push({ path, message: 'at least one of lhs and rhs must be provided' });
    return undefined;
  }
  const atom = resolve(type);
  const al = deduced(atom, lhs);
  const ar = deduced(atom, rhs);
  if (al !== ar) {
    // SMD also walks the value as the live side's kind; only scalar checks can fail on that pass.
    const lp = al === 'full' ? firstPart(atom) : al;
    if (lp === 'scalar') scalarErrors(atom, lhs, rhs, path, errors);
  }
  switch (ar === 'full' ? firstPart(atom) : ar) {
    case 'map':
      return mergeMap(atom.map!, lhs, rhs, path, errors);
    case 'scalar':
      if (scalarErrors(atom, lhs, rhs, path, errors)) return undefined;
      return rhs !== undefined ? rhs : lhs;
    case 'list':
      return mergeList(atom.list!, lhs, rhs, path, errors);
    default:
      errors.push({ path, message: 'schema error: invalid atom: inlined' });
      return undefined;
  }
}

function scalarErrors(atom: Atom, lhs: Side, rhs: Side, path: string, errors: SmdError[]): boolean {
  const l = lhs === undefined ? undefined : scalarError(atom.scalar!, lhs, 'lhs: ');
  const r = rhs === undefined ? undefined : scalarError(atom.scalar!, rhs, 'rhs: ');
  if (l) errors.push({ path, message: l });
  if (r) errors.push({ path, message: r });
  return l !== undefined || r !== undefined;
}

function mergeMap(def: MapDef, lhs: Side, rhs: Side, path: string, errors: SmdError[]): Side {
  const l = isJsonObject(lhs) ? lhs : undefined;
  const r = isJsonObject(rhs) ? rhs : undefined;
  const lKeys = l ? Object.keys(l) : [];
  const rKeys = r ? Object.keys(r) : [];
  // Atomic, or nothing on either side: a leaf, which keeps the empty/null distinction of the patch.
  if (def.atomic || (lKeys.length === 0 && rKeys.length === 0)) return rhs !== undefined ? rhs : lhs;
  if (!r) return l; // nothing to merge in: SMD rebuilds the same map
  const out: JsonObject = {};
  let produced = 0;
  // Whether `out` differs from `l`: when it does not, `l` itself is the result, so that a merge that
  // changes nothing gives back the live object (later identity checks and diffs stop at once).
  let changed = false;
  for (const key of lKeys) {
    const lv = l![key];
    const rv = Object.prototype.hasOwnProperty.call(r, key) ? r[key] : undefined;
    const merged = rv === undefined ? lv : mergeValue(lv, rv, fieldType(def, key), path + fieldElement(key), errors);
    if (merged !== lv) changed = true;
    if (merged !== undefined) {
      setOwn(out, key, merged);
      produced++;
    }
  }
  for (const key of rKeys) {
    if (l && Object.prototype.hasOwnProperty.call(l, key)) continue;
    const merged = mergeValue(undefined, r[key], fieldType(def, key), path + fieldElement(key), errors);
    if (merged !== undefined) {
      setOwn(out, key, merged);
      produced++;
      changed = true;
    }
  }
  if (!changed && l) return l;
  return produced > 0 ? out : undefined;
}

const NO_TYPE: Atom = {};

/** A key that is neither a field nor allowed by the map fails like SMD's empty type reference. */
function fieldType(def: MapDef, key: string): TypeRef {
  return def.fields?.get(key)?.type ?? def.elem ?? NO_TYPE;
}

interface Indexed {
  /** Path elements in list order; for the live side duplicates appear once per occurrence. */
  order: string[];
  /** The item at each position of `order`. */
  values: JsonValue[];
  /** Path element -> item (for duplicated live keys: null, SMD merges nothing into them). */
  items: Map<string, JsonValue>;
}

function indexList(def: ListDef, list: JsonArray | undefined, allowDuplicates: boolean, path: string, errors: SmdError[]): Indexed {
  const idx: Indexed = { order: [], values: [], items: new Map() };
  if (!list) return idx;
  for (let i = 0; i < list.length; i++) {
    const key = associativeItemKey(def, list[i]);
    if (key.error !== undefined) {
      errors.push({ path, message: `element ${i}: ${key.error}` });
      continue;
    }
    if (idx.items.has(key.pe)) {
      if (!allowDuplicates) {
        errors.push({ path, message: `duplicate entries for key ${key.pe}` });
        continue;
      }
      idx.items.set(key.pe, null);
    } else {
      idx.items.set(key.pe, list[i]);
    }
    idx.order.push(key.pe);
    idx.values.push(list[i]);
  }
  return idx;
}

function mergeList(def: ListDef, lhs: Side, rhs: Side, path: string, errors: SmdError[]): Side {
  const l = Array.isArray(lhs) ? lhs : undefined;
  const r = Array.isArray(rhs) ? rhs : undefined;
  if (def.listType === 'atomic' || ((!l || l.length === 0) && (!r || r.length === 0))) return rhs !== undefined ? rhs : lhs;
  if (!r) return l;
  const rIdx = indexList(def, r, false, path, errors);
  const lIdx = indexList(def, l, true, path, errors);
  const out: JsonValue[] = [];
  const merged = new Set<string>();

  // SMD visitListItems: walk both lists; live-only items keep their relative order, items the patch names
  // follow the patch's order, each new patch item goes after the shared item that precedes it in the patch.
  const shared = rIdx.order.filter((pe) => lIdx.items.has(pe));
  let sharedAt = 0;
  const lOrder = lIdx.order;
  const rOrder = rIdx.order;
  let li = 0;
  let ri = 0;
  while (li < lOrder.length || ri < rOrder.length) {
    const nextShared = sharedAt < shared.length ? shared[sharedAt] : undefined;
    if (li < lOrder.length && ri < rOrder.length) {
      const pe = lOrder[li];
      if (pe === rOrder[ri]) {
        const v = mergeValue(lIdx.items.get(pe)!, rIdx.items.get(pe)!, def.elem, path + pe, errors);
        if (v !== undefined) out.push(v);
        merged.add(pe);
        li++;
        ri++;
        sharedAt++;
        continue;
      }
      if (rIdx.items.has(pe) && nextShared !== undefined && nextShared !== pe) {
        li++; // a shared item, but not the next one the patch orders: it is placed when the patch reaches it
        continue;
      }
    }
    if (li < lOrder.length) {
      const pe = lOrder[li];
      if (!rIdx.items.has(pe)) {
        out.push(lIdx.values[li]);
        li++;
        continue;
      }
      if (merged.has(pe)) {
        li++; // a further duplicate of a key the patch already replaced
        continue;
      }
    }
    if (ri < rOrder.length) {
      const pe = rOrder[ri];
      const v = mergeValue(lIdx.items.get(pe), rIdx.items.get(pe)!, def.elem, path + pe, errors);
      if (v !== undefined) out.push(v);
      merged.add(pe);
      ri++;
      if (nextShared === pe) sharedAt++;
    }
  }
  if (l && out.length === l.length && out.every((v, i) => v === l[i])) return l;
  return out.length > 0 ? out : undefined;
}
