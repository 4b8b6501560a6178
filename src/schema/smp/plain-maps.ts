/**
 * Map types under which a strategic merge's normalizing walk (a resource subtree the overlay does not
 * touch) changes nothing: no keyed list anywhere below them in the schema (lists there are kept as they
 * are, unwalked), and every key typed (no embedded object whose own kind would pick a schema). A resource
 * map of such a type is its own normalized form, which a plain scan tells without the typed walk
 * (./merge.ts normalizeMap).
 */
import type { ReviewGuard } from '../../guard/index.js';
import { estimatedLeafSize, estimatedSize, hasOwn, type JsonObject } from '../../json/index.js';
import { resolve, type Atom, type FieldDef, type TypeRef } from '../types.js';
import { mergesLists } from './patch-strategy.js';

/** Answers by map type; `false` while a type is being decided (a recursive schema is not plain). */
const plainTypes = new WeakMap<Atom, boolean>();

/** Is `atom` a map type whose normalizing walk changes nothing (that a plain scan cannot tell)? */
export function isPlainMapType(atom: Atom): boolean {
  let plain = plainTypes.get(atom);
  if (plain === undefined) {
    plainTypes.set(atom, false);
    plain = decide(atom);
    plainTypes.set(atom, plain);
  }
  return plain;
}

function decide(atom: Atom): boolean {
  const def = atom.map;
  if (def === undefined) return false;
  if (def.fields) for (const field of def.fields.values()) if (!plainMember(resolve(field.type), field)) return false;
  return def.elem === undefined || plainMember(resolve(def.elem), undefined);
}

/** A field (or the type of undeclared keys): its lists must not merge by key, its maps be plain too. */
function plainMember(atom: Atom, field: FieldDef | undefined): boolean {
  if (atom.list && field?.patchStrategy && mergesLists(field.patchStrategy)) {
    // A `merge` list without a key (a union of scalars) is kept as it is by the walk; one with a key is walked.
    if ((atom.list.listType === 'map' && atom.list.keys.length > 0) || field.patchMergeKey) return false;
  }
  return atom.map === undefined || isPlainMapType(atom);
}

/** What plainNormalSize answers for a map the normalizing walk would change. */
export const NOT_NORMAL = -1;

/**
 * Does the map (of a plain map type) come back from the normalizing walk as it is: no undeclared key
 * holding an object, in it or in the maps below, where the type has no type for such keys? (Nulls stay.)
 * Lists are kept whole by the walk. Answers NOT_NORMAL when it would change, else the map's estimated
 * JSON size (src/json/size-estimate.ts; lists measured up to `limit`), which is exact up to `limit` and
 * some number above it past that. Ticks the guard once per map or list.
 */
export function plainNormalSize(map: JsonObject, atom: Atom, guard: ReviewGuard | undefined, limit: number): number {
  guard?.tick();
  const def = atom.map!;
  let size = 2;
  for (const name in map) {
    // for-in lists inherited enumerable keys too: only own ones belong to the map.
    if (!hasOwn(map, name)) continue;
    const v = map[name];
    if (v === null || typeof v !== 'object') {
      size += name.length + 3 + estimatedLeafSize(v);
      continue;
    }
    const field = def.fields?.get(name);
    const type: TypeRef | undefined = field ? field.type : def.elem;
    // An undeclared key without a type: the walk would look for an embedded kind (or infer list keys).
    if (type === undefined) return NOT_NORMAL;
    if (Array.isArray(v)) {
      size += name.length + 3 + estimatedSize(v, undefined, limit, guard);
      continue;
    }
    const child = resolve(type);
    if (child.map === undefined) return NOT_NORMAL;
    const childSize = plainNormalSize(v, child, guard, limit);
    if (childSize === NOT_NORMAL) return NOT_NORMAL;
    size += name.length + 3 + childSize;
  }
  return size;
}
