import type { ReviewGuard } from '../../guard/index.js';
import { estimatedLeafSize, estimatedSize, getOwn, hasNumberMarks, hasOwn, isJsonObject, ownMember, setOwn, shallowCopyObject, sliceArray, type JsonArray, type JsonObject, type JsonValue, type SizeMemo } from '../../json/index.js';
import { SchemaRegistry } from '../registry.js';
import { resolve, type Atom, type FieldDef, type ListDef, type MapDef, type TypeRef } from '../types.js';
import type { StrategicMergeChain, TrackedList } from './chain.js';
import { mergesLists } from './patch-strategy.js';
import { isPlainMapType, NOT_NORMAL, plainNormalSize } from './plain-maps.js';
import { isFull, keyId, keyTuple, mergeValues, objectTuple, scalarText, someStrictProjection, tupleId, tupleMatches, TupleIndex, type Tuple } from './tuples.js';

/** A strategic merge that cannot be done (mismatched node kinds, unknown `$patch`, list items without a key). */
export class StrategicMergeError extends Error {
  override name = 'StrategicMergeError';
}

export type StrategicMergeResult = { ok: true; value: JsonObject } | { ok: false; error: StrategicMergeError };

export interface StrategicMergeOptions {
  /**
   * Where built-in kinds' patch strategies come from. Default: SchemaRegistry.kyaml(), the Kubernetes
   * v1.21.2 facts compiled into kyaml, which Kyverno uses (SchemaRegistry.builtin() for the current ones).
   */
  registry?: SchemaRegistry;
  /**
   * kyaml's InferAssociativeLists: a list the schema says nothing about is merged by `name` when every item
   * of a side has one (recent kyaml infers only `name`). Off by default because kustomize's
   * patchstrategicmerge filter, which Kyverno uses, leaves it off: such lists (every list of a custom
   * resource) are replaced whole.
   */
  inferListMergeKey?: boolean;
  /** Shared by merges that feed each other (each into the previous one's result), so they skip what they share. */
  cache?: StrategicMergeCache;
  /**
   * Merges each into the previous one's result and read by nothing else until `chain.settle()`: keyed
   * lists are then edited in place of being copied (see ./chain.ts).
   */
  chain?: StrategicMergeChain;
  /** The review's bounds: ticked once per node walked (a deadline or cancellation throws ReviewAborted). */
  guard?: ReviewGuard;
}

const DIRECTIVE = '$patch';

/** What a walk of one node gives: a value, or DELETE (the field or item goes away). */
const DELETE = Symbol('delete');
type Walked = JsonValue | undefined | typeof DELETE;

/**
 * Kyverno's `patchStrategicMerge` merge step: kustomize kyaml `merge2` with list increase direction
 * *prepend* (what the patchstrategicmerge filter sets), after anchors were resolved into a plain overlay.
 *
 * - maps merge recursively; `null` in the overlay deletes the key (a null the resource holds where the
 *   overlay has nothing stays, as kyaml ≥ 0.17 keeps it: merge2's persistent null);
 *   `$patch: delete | replace | merge` on a map;
 * - lists whose field has patch strategy `merge` are merged by their merge key(s) (the list-map keys when the
 *   schema has them, else `patchMergeKey`; matching uses only the keys an overlay item sets), or, without a
 *   key, as a union of scalars; items the overlay names come first in overlay order, then the untouched
 *   resource items in their order (under several keys, the resource's items all follow the overlay's new
 *   ones in their order; of duplicate keys the last one stays: resourceItemsSet); an overlay item
 *   `{$patch: replace}` drops the resource's items;
 * - every other list (no strategy, `retainKeys`/`replace`, unknown kinds, custom resources) is replaced.
 *
 * Never modifies its inputs; the result may share untouched scalars and replaced lists with them.
 * Resource subtrees the overlay does not touch are walked too (kyaml merges their duplicate list keys)
 * and given back as they are when there was nothing to do; with `options.cache`, merges into the result
 * of an earlier one skip the subtrees that earlier walks found so.
 *
 * Linear in the resource plus the overlay: keyed lists are matched through a Map of their items' merge
 * keys (./tuples.ts), and within a chain (`options.chain`) a list the overlay names a few items of costs
 * only those items.
 */
export function strategicMerge(resource: JsonValue, overlay: JsonValue, options: StrategicMergeOptions = {}): StrategicMergeResult {
  if (!isJsonObject(resource)) return { ok: false, error: new StrategicMergeError('strategic merge: the resource is not an object') };
  if (!isJsonObject(overlay)) return { ok: false, error: new StrategicMergeError('strategic merge: the patch is not an object') };
  const registry = options.registry ?? SchemaRegistry.kyaml();
  const root = rootType(registry, resource) ?? rootType(registry, overlay);
  try {
    const infer = options.inferListMergeKey ?? false;
    const chain = options.chain?.serves(registry, infer) ? options.chain : undefined;
    const merger = new Merger(registry, infer, options.cache?.normalizedFor(registry, infer), chain, options.guard, options.cache?.sizes);
    const out = merger.walk(resource, overlay, root, undefined);
    if (!isJsonObject(out)) throw new StrategicMergeError('strategic merge: the patch deletes the whole resource');
    return { ok: true, value: out };
  } catch (err) {
    if (err instanceof StrategicMergeError) return { ok: false, error: err };
    throw err;
  }
}

/** Only built-in kinds have patch strategies (kyaml knows nothing of CRDs). */
function rootType(registry: SchemaRegistry, obj: JsonObject): TypeRef | undefined {
  // ownMember: resources nearly always have both, and a present member costs a plain read.
  const apiVersion = ownMember(obj, 'apiVersion');
  const kind = ownMember(obj, 'kind');
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const t = registry.lookup(apiVersion, kind);
  return t?.source === 'builtin' ? t.root : undefined;
}

type Kind = 'map' | 'list' | 'scalar';

function kindOf(v: JsonValue | undefined): Kind | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? 'map' : 'scalar';
}

const KIND_NAMES: Record<Kind, string> = { map: 'MappingNode', list: 'SequenceNode', scalar: 'ScalarNode' };

/** The type a map was normalized under when there was none (its own apiVersion/kind decide). */
const NO_TYPE: Atom = {};

/** Where normalizing walks record sizes, and the largest they record (a measure's bound: past it sizes are partial). */
export interface SizeRecord {
  readonly memo: Pick<SizeMemo, 'set'>;
  readonly limit: number;
}

/** Resource maps and keyed lists a walk without overlay gave back unchanged, with the types it used. */
interface Normalized {
  readonly maps: Map<JsonObject, Atom>;
  readonly lists: Map<JsonArray, { elem: Atom; keys: readonly string[] }>;
}

/**
 * What a sequence of strategic merges into one document remembers between calls (Kyverno: one per
 * request): the resource maps and keyed lists that a walk without overlay gave back unchanged, with
 * the type, item type and merge keys that walk used. Each merge shares every subtree it did not touch
 * with its input, so the next merge walks only what earlier steps rebuilt or added. The documents
 * must not be modified while the cache lives (they are immutable throughout Amender). Plain Maps,
 * dropped with the cache: a long-lived WeakMap of short-lived documents costs more in V8 than the walk.
 */
export class StrategicMergeCache {
  private bound: { registry: SchemaRegistry; infer: boolean; normalized: Normalized } | undefined;

  /**
   * `sizes`: where normalizing walks hand the estimated JSON sizes (src/json/size-estimate.ts) of the
   * subtrees they found normalized, up to `limit` — the review's size memo (Kyverno's measure of each
   * rule's output then finds them instead of walking those subtrees again).
   */
  constructor(readonly sizes?: SizeRecord) {}

  /** The memo for these options; undefined when the cache already serves other ones. */
  normalizedFor(registry: SchemaRegistry, infer: boolean): Normalized | undefined {
    this.bound ??= { registry, infer, normalized: { maps: new Map(), lists: new Map() } };
    return this.bound.registry === registry && this.bound.infer === infer ? this.bound.normalized : undefined;
  }
}

class Merger {
  /**
   * False once the current subtree holds something a walk without overlay would still change: the items
   * without merge key that a keyed list keeps unwalked at its end. Only subtrees without such items are
   * remembered as normalized.
   */
  private clean = true;
  /**
   * Where the walk is, for error messages only: a field name, a list index, or the key tuple of a keyed
   * list item per level. Kept as a stack and formatted only when a message needs it.
   */
  private readonly at: (string | number | Tuple)[] = [];
  /**
   * The estimated size of `sized`, the value a normalizing walk of a map or list last gave back, when it
   * knew it within the bound; a parent walk reads it only for the value its child's walk returned.
   */
  private sized: object | undefined;
  private sizedAs = 0;
  /**
   * Edits made in place so far (a chain's list under edit, a plain map the chain built): a walk that
   * gives back the value it was given changed nothing only when this did not move; otherwise its
   * parent is copied as for any change.
   */
  private inPlaceEdits = 0;
  private readonly sizeLimit: number;

  constructor(
    private readonly registry: SchemaRegistry,
    private readonly infer: boolean,
    private readonly normalized: Normalized | undefined,
    private readonly chain: StrategicMergeChain | undefined,
    private readonly guard: ReviewGuard | undefined,
    private readonly sizes: SizeRecord | undefined,
  ) {
    this.sizeLimit = sizes ? sizes.limit : -1;
  }

  /** The size of `value` (a map or list just walked), or -1 when its walk did not know it. */
  private sizeOf(value: Walked): number {
    return value === this.sized && value !== undefined ? this.sizedAs : -1;
  }

  /** Records `size` for `value` when known and within the bound (-1: unknown). */
  private sizedResult(value: object, size: number): void {
    if (size < 0 || size > this.sizeLimit) return;
    this.chain?.disown(value);
    this.sizes!.memo.set(value, size);
    this.sized = value;
    this.sizedAs = size;
  }

  /** The path of the node being walked, as messages show it (`.spec.containers[web]`). */
  path(): string {
    let out = '';
    for (const step of this.at) {
      if (typeof step === 'string') out += `.${step}`;
      else if (typeof step === 'number') out += `[${step}]`;
      else out += `[${step.length === 1 ? step[0] : step.filter(Boolean).join(',')}]`;
    }
    return out;
  }

  walk(dest: JsonValue | undefined, origin: JsonValue | undefined, type: TypeRef | undefined, field: FieldDef | undefined): Walked {
    this.guard?.tick();
    // kyaml takes the kind of the first side that is neither missing nor null; the other must agree.
    const dk = kindOf(dest);
    const ok = kindOf(origin);
    if (dk !== undefined && ok !== undefined && dk !== ok) {
      throw new StrategicMergeError(`strategic merge: wrong node kind at ${this.path() || '.'}: expected ${KIND_NAMES[dk]} but got ${KIND_NAMES[ok]}`);
    }
    switch (dk ?? ok) {
      case 'list':
        return this.list(dest as JsonArray | null | undefined, origin as JsonArray | null | undefined, type, field);
      case 'scalar':
        return origin !== undefined ? origin : dest;
      default:
        if (origin === undefined) return dest ? this.normalizeMap(dest as JsonObject, type) : undefined;
        return this.map(dest as JsonObject | null | undefined, origin as JsonObject | null | undefined, type);
    }
  }

  private map(dest: JsonObject | null | undefined, origin: JsonObject | null | undefined, type: TypeRef | undefined): Walked {
    if (origin === undefined) return dest ? this.normalizeMap(dest, type) : undefined;
    let base: JsonObject | null | undefined;
    // One own-property test for `$patch` (rarely there) serves both the directive and the patch without it.
    const directed = origin ? hasOwn(origin, DIRECTIVE) : false;
    const directive = directed ? smpDirective(origin!, this) : 'merge';
    const patch = directed ? withoutDirective(origin!) : origin;
    if (dest === undefined || dest === null) {
      if (directive === 'delete') return DELETE;
      base = patch;
    } else if (origin === null || directive === 'delete') {
      return DELETE;
    } else {
      base = directive === 'replace' ? patch : dest;
    }
    if (base === undefined || base === null) return base;
    // A merged map is normalized under the type it was merged with when that was given (not looked up).
    const given = type ? resolve(type) : undefined;
    // Where the schema ends, kyaml looks for an embedded object of a known kind (apiVersion + kind).
    type ??= (dest ? rootType(this.registry, dest) : undefined) ?? (patch ? rootType(this.registry, patch) : undefined);
    const def = (given ?? (type ? resolve(type) : undefined))?.map;
    const outer = this.clean;
    this.clean = true;
    // The overlay's fields, split into those the base has and those it adds, looked up from the
    // overlay's side: an overlay names a few of a resource map's fields, and a key that is not the
    // map's own for-in key costs a full own-property lookup.
    const split = patch && base !== patch ? splitFields(patch, base) : undefined;
    let out: JsonObject;
    let inPlace = false;
    if (base === dest && patch && this.knownNormalized(dest, given, type)) {
      // Its fields the overlay does not touch would come back from their walks as they are (keyed lists
      // merged): only the overlay's fields are walked, in the map's order as below, and the map is
      // copied once one of them changes. An overlay that names a list item by its key only, or sets
      // what the map holds, gives the map back as it is (Kyverno's `+()` anchors in a foreach's list
      // item name every item of the list, per element: copies of them all filled the normalized memo
      // with n² maps). A map with marked numbers is copied as before (the copy drops the marks).
      // A plain map that an earlier merge of the chain built (nothing else holds it) is edited in place:
      // its fields are scalars and plain maps, whose merge is the same when repeated (a merge the chain
      // abandons for the general walk may have run).
      inPlace = split !== undefined && given !== undefined && this.chain?.owns(dest) === true && isPlainMapType(given) && !hasNumberMarks(dest);
      let copy = inPlace ? dest : hasNumberMarks(dest) ? shallowCopyObject(dest) : undefined;
      if (split === undefined || split.several) {
        // Several fields (or the overlay is the map itself): in the map's order.
        for (const name in dest) {
          const ov = getOwn(patch, name);
          if (ov !== undefined) copy = this.walkCopied(copy, dest, name, ov, def);
        }
      } else if (split.shared !== undefined) {
        copy = this.walkCopied(copy, dest, split.shared, patch[split.shared], def);
      }
      // The resource itself is copied all the same: a merge gives a new resource, whatever it changed
      // (Kyverno's foreach refreshes `request.object` between entries only when the resource is a new one).
      out = copy ?? (split?.added !== undefined || this.at.length === 0 ? shallowCopyObject(dest) : dest);
    } else {
      out = {};
      // kyaml walks the union of field names in sorted order and appends new fields at the end.
      const shared = split?.shared;
      const several = split?.several ?? false;
      for (const name in base) {
        if (!hasOwn(base, name)) continue;
        const dv = base[name];
        const ov = base === patch ? dv : several ? getOwn(patch!, name) : name === shared ? patch![name] : undefined;
        // A scalar or null the overlay does not touch is kept without a walk.
        if (ov === undefined && (dv === null || typeof dv !== 'object')) {
          setOwn(out, name, dv);
        } else {
          this.put(out, name, dv, ov, def);
        }
      }
    }
    const added = split?.added;
    if (added !== undefined) {
      if (added.length > 1) added.sort();
      for (const name of added) this.put(out, name, undefined, patch![name], def);
    }
    if (this.clean && given) this.normalized?.maps.set(out, given);
    else if (inPlace) this.normalized?.maps.delete(out);
    if (inPlace) this.inPlaceEdits++;
    if (this.chain !== undefined && out !== dest && given !== undefined && isPlainMapType(given)) this.chain.own(out);
    this.clean &&= outer;
    return out;
  }

  /**
   * Was `dest` normalized under the type this walk gives it? The memo holds the type given to the walk
   * that normalized it (NO_TYPE for none, when that walk took the map's own kind, as this one does
   * unless only the overlay names a kind).
   */
  private knownNormalized(dest: JsonObject, given: Atom | undefined, type: TypeRef | undefined): boolean {
    if (this.normalized === undefined || this.normalized.maps.get(dest) !== (given ?? NO_TYPE)) return false;
    return given !== undefined || type === rootType(this.registry, dest);
  }

  /**
   * The walk of an overlay field of a map known normalized, `dest`, into its copy `out` (made here when
   * the field changes). Gives back the copy, if any.
   */
  private walkCopied(out: JsonObject | undefined, dest: JsonObject, name: string, ov: JsonValue, def: MapDef | undefined): JsonObject | undefined {
    const dv = dest[name];
    const edits = this.inPlaceEdits;
    const r = this.walkField(dv, ov, def, name);
    if (r === dv && r !== null && this.inPlaceEdits === edits) return out;
    out ??= shallowCopyObject(dest);
    if (r !== undefined && r !== null && r !== DELETE) setOwn(out, name, r);
    else delete out[name]; // rare (the overlay deletes a field): the copy becomes a slower object
    return out;
  }

  private put(out: JsonObject, name: string, dv: JsonValue | undefined, ov: JsonValue | undefined, def: MapDef | undefined): void {
    const r = this.walkField(dv, ov, def, name);
    if (r !== undefined && r !== null && r !== DELETE) setOwn(out, name, r);
  }

  /** The walk of a map's field `name`, under the field's type (or the map's type for other keys). */
  private walkField(dv: JsonValue | undefined, ov: JsonValue | undefined, def: MapDef | undefined, name: string): Walked {
    const field = def?.fields?.get(name);
    this.at.push(name);
    const r = this.walk(dv, ov, field ? field.type : def?.elem, field);
    this.at.pop();
    return r;
  }

  /**
   * walkField of a map the overlay does not touch, in one frame of this walk's own: a resource nested as
   * deep as a review may be (1000 levels) is walked here, and a frame per level is what keeps that within
   * the stack (walk → map → normalizeMap → walkField per level overflowed below 1000).
   */
  private normalizeField(v: JsonObject, def: MapDef | undefined, name: string): JsonObject {
    this.guard?.tick();
    const field = def?.fields?.get(name);
    this.at.push(name);
    const r = this.normalizeMap(v, field ? field.type : def?.elem);
    this.at.pop();
    return r;
  }

  /**
   * A resource map the overlay does not touch: kept as is, nulls included (kyaml ≥ 0.17 keeps a null the
   * overlay does not name), except below it where keyed lists merge duplicate keys.
   */
  private normalizeMap(dest: JsonObject, type: TypeRef | undefined): JsonObject {
    const typeSeen = type ? resolve(type) : NO_TYPE;
    if (this.normalized?.maps.get(dest) === typeSeen) return dest;
    // No keyed list can be below it: the map is its own normalized form (no typed walk).
    if (type !== undefined && isPlainMapType(typeSeen)) {
      const size = plainNormalSize(dest, typeSeen, this.guard, this.sizeLimit);
      if (size !== NOT_NORMAL) {
        this.normalized?.maps.set(dest, typeSeen);
        this.sizedResult(dest, size);
        return dest;
      }
    }
    // Its own kind's type when none was given (typeSeen is the given one resolved).
    const own = type === undefined ? rootType(this.registry, dest) : undefined;
    const def = type !== undefined ? typeSeen.map : own ? resolve(own).map : undefined;
    const outer = this.clean;
    this.clean = true;
    let out: JsonObject | undefined;
    // The size of what comes back, member by member (-1 once a member's is not known).
    let size = 2;
    // for-in, not Object.keys: this walk visits every map of a resource, and most come back unchanged.
    for (const name in dest) {
      if (!hasOwn(dest, name)) continue;
      const v = dest[name];
      let r: Walked = v;
      if (v !== null && typeof v === 'object') {
        r = Array.isArray(v) ? this.walkField(v, undefined, def, name) : this.normalizeField(v, def, name);
        if (size >= 0 && r !== undefined && r !== null && r !== DELETE) {
          const s = this.sizeOf(r);
          size = s >= 0 ? size + name.length + 3 + s : -1;
        }
      } else if (size >= 0) size += name.length + 3 + estimatedLeafSize(v);
      if (r !== v && out === undefined) out = fieldsBefore(dest, name);
      if (out !== undefined && (r === v || (r !== undefined && r !== null && r !== DELETE))) setOwn(out, name, r as JsonValue);
    }
    if (this.clean) this.normalized?.maps.set(out ?? dest, typeSeen);
    this.clean &&= outer;
    if (this.sizes) this.sizedResult(out ?? dest, size);
    return out ?? dest;
  }

  /** kyaml's PatchStrategyAndKeyList + IsAssociative, or inference by `name` where there is no schema. */
  private listKeys(type: TypeRef | undefined, listDef: ListDef | undefined, field: FieldDef | undefined, dest: JsonArray | null | undefined, origin: JsonArray | null | undefined): string[] | undefined {
    if (type && listDef) {
      if (!field?.patchStrategy || !mergesLists(field.patchStrategy)) return undefined;
      if (listDef.listType === 'map' && listDef.keys.length > 0) return listDef.keys as string[];
      return field?.patchMergeKey ? [field.patchMergeKey] : [];
    }
    if (!this.infer || type) return undefined;
    let key: string | undefined;
    for (const side of [dest, origin]) {
      if (!side || side.length === 0) continue;
      const k = side.every((item) => isJsonObject(item) && nonEmpty(getOwn(item, 'name'))) ? 'name' : '';
      if (key !== undefined && key !== k) throw new StrategicMergeError(`strategic merge: conflicting merge keys [${key},${k}] for field ${this.path().slice(1)}`);
      key = k;
    }
    return key ? [key] : undefined;
  }

  private list(dest: JsonArray | null | undefined, origin: JsonArray | null | undefined, type: TypeRef | undefined, field: FieldDef | undefined): Walked {
    // The list type, resolved once for the keys and the items.
    const listDef = type ? resolve(type).list : undefined;
    const keys = this.listKeys(type, listDef, field, dest, origin);
    if (keys === undefined) {
      // Replaced whole (null clears), or kept whole without overlay: then measured for its parent's size.
      if (origin !== undefined) return origin;
      if (dest && this.sizes) this.sizedResult(dest, estimatedSize(dest, undefined, this.sizeLimit, this.guard));
      return dest;
    }
    const tracked = dest ? this.chain?.tracked(dest) : undefined;
    if (tracked !== undefined) {
      const elemSeen = resolveElem(type);
      if (origin === undefined && tracked.fits(elemSeen, keys)) return dest; // normalized, by the invariant
      const merged = origin && tracked.fits(elemSeen, keys) ? this.mergeTracked(tracked, origin, keys, type) : undefined;
      if (merged !== undefined) return merged;
      this.chain!.release(tracked.array); // what follows reads its items
    }
    if (origin === null) return dest === undefined || dest === null ? origin : DELETE;
    let directive: 'merge' | 'replace' | 'delete' = 'merge';
    if (origin !== undefined) {
      const d = listDirective(origin, this);
      if (d) {
        directive = d.directive;
        origin = d.rest;
      }
    }
    if (directive === 'delete') return DELETE;
    if (dest === undefined || dest === null || directive === 'replace') {
      if (origin === undefined) return dest;
      dest = origin;
    }
    const elem = listDef?.elem;
    if (keys.length === 0) return origin === undefined ? dest : primitiveUnion(dest, origin);
    if (origin === undefined) {
      const same = this.normalizeKeyedList(dest, keys, elem);
      if (same !== undefined) return same;
    }
    return this.keyedList(dest, origin ?? [], keys, elem);
  }

  /** An untouched keyed list with unique keys: its items, each normalized; undefined when it needs the full walk. */
  private normalizeKeyedList(dest: JsonArray, keys: string[], elem: TypeRef | undefined): JsonArray | undefined {
    const elemSeen = elem ? resolve(elem) : NO_TYPE;
    const known = this.normalized?.lists.get(dest);
    if (known !== undefined && known.elem === elemSeen && sameKeys(known.keys, keys)) return dest;
    // Short lists (most of a Pod's) compare their few ids directly; a Set pays off from a dozen.
    const ids: string[] = [];
    let seen: Set<string> | undefined;
    let out: JsonArray | undefined;
    let size = 2;
    for (let i = 0; i < dest.length; i++) {
      const item = dest[i];
      const id = keyId(item, keys);
      if (id === undefined) return undefined;
      // Under several keys an item lacking one may be merged with or set over others (keyedList).
      if (keys.length > 1 && !isFull(keyTuple(item, keys)!)) return undefined;
      if (seen !== undefined) {
        if (seen.has(id)) return undefined;
        seen.add(id);
      } else {
        if (ids.includes(id)) return undefined;
        ids.push(id);
        if (ids.length > 12) seen = new Set(ids);
      }
      this.at.push(i);
      const r = this.walk(item, undefined, elem, undefined);
      this.at.pop();
      if (r === undefined || r === null || r === DELETE || isEmptyMap(r)) return undefined;
      if (size >= 0) {
        const s = this.sizeOf(r);
        size = s >= 0 ? size + s + 1 : -1;
      }
      if (r !== item && out === undefined) out = sliceArray(dest, 0, i);
      if (out !== undefined) out.push(r);
    }
    if (this.sizes) this.sizedResult(out ?? dest, size);
    if (out !== undefined) return out;
    this.normalized?.lists.set(dest, { elem: elemSeen, keys });
    return dest;
  }

  private keyedList(dest: JsonArray, patchItems: JsonArray, keys: string[], elem: TypeRef | undefined): Walked {
    const outer = this.clean;
    this.clean = true;
    // Every item's key values are read once and filed in an index; a tuple finds its items there.
    // With every key set everywhere (the usual case), matching is equality and a few steps are moot.
    let allFull = true;
    const tuples: Tuple[] = [];
    const seen = new Set<string>();
    const patchIndex = new TupleIndex();
    for (let i = 0; i < patchItems.length; i++) {
      const t = keyTuple(patchItems[i], keys);
      if (!t) throw new StrategicMergeError(`strategic merge: ${this.path()}[${i}]: list item has no merge key (${keys.join(', ')})`);
      patchIndex.add(i, t);
      if (allFull && !isFull(t)) allFull = false;
      const id = tupleId(t);
      if (!seen.has(id)) {
        tuples.push(t);
        seen.add(id);
      }
    }
    const keyless: JsonValue[] = [];
    const remaining: JsonValue[] = [];
    const remainingIndex = new TupleIndex();
    // Read before any walk: a walk in a chain may edit an item in place (a plain map it built).
    const remainingTuples: Tuple[] = [];
    for (const item of dest) {
      const t = keyTuple(item, keys);
      if (!t) {
        keyless.push(item);
        continue;
      }
      remainingIndex.add(remaining.length, t);
      remaining.push(item);
      remainingTuples.push(t);
      if (allFull && !isFull(t)) allFull = false;
      const id = tupleId(t);
      if (!seen.has(id)) {
        tuples.push(t);
        seen.add(id);
      }
    }
    // Items kyaml has deleted from the resource's list (later tuples cannot find them).
    const removed = new Uint8Array(remaining.length);
    // kyaml merges into the resource's item nodes in place; a later tuple that finds the same item sees the
    // merge. (With full tuples each item is found by its own tuple only.)
    const merged = allFull ? undefined : new Map<JsonValue, JsonValue>();
    // The resource items a walk merged into (kyaml edits those nodes in place), by their index.
    let inPlace: (JsonValue | undefined)[] | undefined;
    let out: JsonValue[] = [];
    const outTuples: (Tuple | undefined)[] = [];
    // Built once a collected item does not carry the tuple that found it. Until then, with full tuples, the
    // collected items carry the distinct tuples already seen, so a new tuple replaces none of them.
    let outIndex: TupleIndex | undefined = allFull ? undefined : new TupleIndex();
    // Under several keys kyaml completes a partial tuple from one it matches (a port without protocol
    // becomes the resource's TCP port): then only items holding the completed values are found by it.
    const walked = allFull || keys.length === 1 ? tuples : mergeValues(tuples);
    for (const tuple of walked) {
      // Each distinct tuple reads its own buckets once: the walk stays linear in both lists.
      let found: JsonValue | undefined;
      let foundAt = -1;
      remainingIndex.some(tuple, (at) => {
        if (removed[at] !== 0) return false;
        found = remaining[at];
        foundAt = at;
        return true;
      });
      const d = found === undefined ? undefined : (merged?.get(found) ?? found);
      const patchAt = patchIndex.first(tuple);
      const o = patchAt < 0 ? undefined : patchItems[patchAt];
      let v: Walked;
      if (d !== undefined || o !== undefined) {
        this.at.push(tuple);
        v = this.walk(d, o, elem, undefined);
        this.at.pop();
      }
      if (v === undefined || v === null || v === DELETE || isEmptyMap(v)) {
        remainingIndex.some(tuple, (at) => {
          removed[at] = 1;
          return false;
        });
        continue;
      }
      if (found !== undefined) {
        merged?.set(found, v);
        // `$patch: replace` walks the overlay item instead: the resource's node stays as it was.
        if (o === undefined || !isJsonObject(o) || getOwn(o, DIRECTIVE) !== 'replace') (inPlace ??= new Array(remaining.length))[foundAt] = v;
      }
      if (outIndex === undefined) {
        const next = objectTuple(v, keys);
        out.push(v);
        outTuples.push(next);
        if (next === undefined || tupleId(next) !== tupleId(tuple)) outIndex = indexOf(outTuples);
        continue;
      }
      // kyaml's ElementSetter: replace the items already collected under these keys, else append.
      // An item's tuple may change when it is replaced: it is filed again, and stale entries fail the re-check.
      let replaced = false;
      const index = outIndex;
      index.some(tuple, (at) => {
        if (!tupleMatches(outTuples[at], tuple)) return false;
        out[at] = v;
        const next = objectTuple(v, keys);
        if (next === undefined || outTuples[at] === undefined || tupleId(next) !== tupleId(outTuples[at]!)) {
          outTuples[at] = next;
          if (next !== undefined) index.add(at, next);
        }
        replaced = true;
        return false;
      });
      if (!replaced) {
        const next = objectTuple(v, keys);
        if (next !== undefined) index.add(out.length, next);
        out.push(v);
        outTuples.push(next);
      }
    }
    if (keyless.length > 0) {
      this.clean = false;
      return [...out, ...keyless];
    }
    const settled = resourceItemsSet(out, remaining, remainingTuples, removed, inPlace, keys, tuples);
    if (settled !== undefined) {
      out = settled.items;
      // A resource item no walk merged into (a later duplicate, a `$patch: replace` undone) is not known
      // to be what a walk without overlay gives back.
      if (settled.unwalked) this.clean = false;
    }
    // A walk without overlay would merge items that ended up under one key tuple: not normalized yet.
    // (Items that kept the distinct full tuples that found them are distinct.)
    if (this.clean && outIndex !== undefined && !distinctlyKeyed(out, keys)) this.clean = false;
    if (this.clean) {
      const elemSeen = elem ? resolve(elem) : NO_TYPE;
      this.normalized?.lists.set(out, { elem: elemSeen, keys });
      if (elem) this.chain?.track(out, elemSeen, keys);
    }
    this.clean &&= outer;
    return out;
  }

  /**
   * A merge into a list under edit in a chain, when each distinct overlay tuple names its own item:
   * a full tuple (every merge key set) the item with that tuple, if any; a partial one (a port's
   * `containerPort` without `protocol`) the one item holding the values it sets. The general walk
   * then merges each overlay item into its item and nothing else (no tuple finds the item of another,
   * no earlier overlay item answers for a later tuple, no item that sets only some keys matches an
   * overlay item it was not named by, a deletion removes only its item), and the
   * merged items keep their tuples: kyaml's result is the named items merged, in overlay order,
   * followed by the others unchanged (normalized already). Undefined when that does not hold (a
   * partial tuple matching no item or several, two tuples naming one item) or a merged item is not
   * normalized: the caller takes the general walk.
   */
  private mergeTracked(list: TrackedList, patchItems: JsonArray, keys: string[], type: TypeRef | undefined): JsonArray | undefined {
    const elem = type ? resolve(type).list?.elem : undefined;
    const tuples: Tuple[] = [];
    const at: number[] = [];
    const firstAt = new Map<string, number>();
    let partial = false;
    for (let i = 0; i < patchItems.length; i++) {
      const t = objectTuple(patchItems[i], keys);
      if (t === undefined) return undefined;
      const id = tupleId(t);
      if (firstAt.has(id)) continue;
      firstAt.set(id, i);
      tuples.push(t);
      at.push(i);
      if (!isFull(t)) partial = true;
    }
    // The items named: by full tuples their own id, by partial ones the id of the one item they match.
    const ids: string[] = new Array(tuples.length);
    const partialItems = list.hasPartialItems();
    if (!partial && !partialItems) {
      for (let k = 0; k < tuples.length; k++) ids[k] = tupleId(tuples[k]);
    } else {
      // The general walk takes, for each tuple, the first overlay item matching it (keyedList's patchIndex).
      const patchIndex = new TupleIndex();
      for (let i = 0; i < patchItems.length; i++) {
        const t = keyTuple(patchItems[i], keys);
        if (t === undefined) return undefined; // no key at all: the general walk's error
        // An item of the list that sets only some keys matches the overlay items holding its values:
        // the general walk would merge those into it too.
        if (partialItems && someStrictProjection(t, (id) => list.has(id))) return undefined;
        patchIndex.add(i, t);
      }
      const named = new Set<string>();
      for (let k = 0; k < tuples.length; k++) {
        const t = tuples[k];
        if (patchIndex.first(t) !== at[k]) return undefined;
        const id = isFull(t) ? tupleId(t) : list.onlyMatch(t);
        if (id === undefined || named.has(id)) return undefined;
        named.add(id);
        ids[k] = id;
      }
    }
    if (keys.length > 1 && (partial || partialItems)) {
      // kyaml's mergeValues (keyedList) completes partial tuples from the tuples they match. Here (the
      // invariant: no item holds every value another sets) a tuple of the list completes none of the
      // list's; with two keys only tuples sharing a value match. Overlay tuples completing each other,
      // or more keys: the general walk.
      if (keys.length > 2) return undefined;
      if (partial && tuples.length > 1) {
        const completed = mergeValues(tuples);
        for (let k = 0; k < tuples.length; k++) if (tupleId(completed[k]) !== tupleId(tuples[k])) return undefined;
      }
      // A partial overlay tuple naming an item that sets both keys is completed from it: then no overlay
      // item holds it, the item is walked alone (normalized: unchanged), and kyaml drops the overlay item.
      let kept = 0;
      for (let k = 0; k < ids.length; k++) {
        if (!isFull(tuples[k]) && ids[k] !== tupleId(tuples[k])) continue;
        tuples[kept] = tuples[k];
        at[kept] = at[k];
        ids[kept] = ids[k];
        kept++;
      }
      // (With items lacking keys the general walk decides: resourceItemsSet.)
      if (kept < ids.length && partialItems) return undefined;
      if (kept === 0) return list.array;
      tuples.length = at.length = ids.length = kept;
    }
    // kyaml undoes an item's `$patch: replace` (resourceItemsSet): the general walk does that.
    for (let k = 0; k < ids.length; k++) {
      if (list.has(ids[k]) && getOwn(patchItems[at[k]] as JsonObject, DIRECTIVE) === 'replace') return undefined;
    }
    // Under several keys that some item sets, kyaml leaves the items named where they stand
    // (resourceItemsSet) when every item sets them all; otherwise the general walk decides.
    const setKeys = setKeyCount(list, tuples);
    if (setKeys > 1 && (setKeys < keys.length || list.hasPartialItems())) return undefined;
    const inPlace = setKeys > 1;
    const outer = this.clean;
    this.clean = true;
    const values: (JsonValue | undefined)[] = [];
    for (let k = 0; k < ids.length; k++) {
      // The path shows the overlay tuple's key values, as the general walk does.
      this.at.push(tuples[k]);
      const v = this.walk(list.get(ids[k]), patchItems[at[k]], elem, undefined);
      this.at.pop();
      const gone = v === undefined || v === null || v === DELETE || isEmptyMap(v);
      // The merged item keeps the tuple of the item it was merged into; anything else takes the general walk.
      if (!gone && tupleId(objectTuple(v as JsonValue, keys) ?? ['']) !== ids[k]) this.clean = false;
      values.push(gone ? undefined : (v as JsonValue));
    }
    const clean = this.clean;
    this.clean = outer;
    if (!clean) return undefined;
    if (inPlace) list.replaceInPlace(ids, values);
    else list.replace(ids, values);
    this.inPlaceEdits++;
    return list.array;
  }
}

/**
 * kyaml's last step of a keyed-list merge (walk/associative_sequence.go: appendListNode with the list
 * increase direction prepend, which the patchstrategicmerge filter sets): the resource's items, in their
 * order and as the walk left them (the first item of each key tuple merged in place, a duplicate after
 * it untouched), are set into the collected items by ElementSetter, under the keys some item sets
 * (validateKeys). With one such key each replaces the collected items holding its value (else it is
 * appended), so of duplicates the last one stays, unmerged, where the first was. With several each
 * first deletes the collected items holding its values and is then appended: the resource's items end
 * up after the overlay's new ones in their own order, the last of duplicates where it stands. An item
 * whose `$patch: replace` made the walk take the overlay's item is set back as the resource had it.
 *
 * Undefined when that changes nothing (the usual case: distinct keys, every item merged in place, and
 * with one key the order is kept); `unwalked` when a resource item no walk merged into was set.
 * Under several keys a resource item missing the last of them is set by its leading values; an item
 * missing another (or, under one key, a keyless item) leaves the items as the walk collected them (not
 * modelled: kyaml compares the values it has with the wrong keys and keeps copies of it).
 */
function resourceItemsSet(
  out: JsonValue[],
  remaining: readonly JsonValue[],
  remainingTuples: readonly Tuple[],
  removed: Uint8Array,
  inPlace: readonly (JsonValue | undefined)[] | undefined,
  keys: readonly string[],
  tuples: readonly Tuple[],
): { items: JsonValue[]; unwalked: boolean } | undefined {
  // The keys some item (of either side) sets: kyaml's validKeys.
  let valid: number[] | undefined;
  if (keys.length > 1) {
    valid = [];
    for (let k = 0; k < keys.length; k++) if (tuples.some((t) => t[k] !== '')) valid.push(k);
    if (valid.length === keys.length || valid.length === 0) valid = undefined;
  }
  const setKeys = valid === undefined ? keys : valid.map((k) => keys[k]);
  const several = setKeys.length > 1;
  // Each item's values as kyaml reads them then: a merged item's as merged (its node was edited in
  // place), another's as it was read before the walk (a chain may have edited the map since).
  const ids: (string | undefined)[] = new Array(remaining.length);
  const partials: (string[] | undefined)[] = new Array(remaining.length);
  let plain = true;
  const seen = new Set<string>();
  for (let i = 0; i < remaining.length; i++) {
    if (removed[i] !== 0) continue;
    const merged = inPlace?.[i];
    const t = merged !== undefined ? objectTuple(merged, setKeys) : valid === undefined ? remainingTuples[i] : valid.map((k) => remainingTuples[i][k]);
    if (t === undefined) return undefined;
    if (!isFull(t)) {
      // Under several keys kyaml reads only the values the item has (below).
      const values = several ? presentPrefix(t) : undefined;
      if (values === undefined) return undefined;
      partials[i] = values;
      plain = false;
      continue;
    }
    const id = tupleId(t);
    if (plain && (merged === undefined || seen.has(id))) plain = false;
    seen.add(id);
    ids[i] = id;
  }
  // Distinct keys merged in place: one key replaces each collected item by itself.
  if (plain && !several) return undefined;
  const items = out.slice();
  const alive: boolean[] = new Array<boolean>(items.length).fill(true);
  // Positions by the values an item holds now (stale entries are checked again when read).
  const at = new Map<string, number[]>();
  const idOf = (item: JsonValue): string | undefined => {
    const t = objectTuple(item, setKeys);
    return t === undefined ? undefined : tupleId(t);
  };
  // With items lacking the last keys: positions also by the leading values they hold (an item lacking the last keys deletes them).
  const byPrefix = partials.some((v) => v !== undefined) ? new Map<string, number[]>() : undefined;
  const fileUnder = (index: Map<string, number[]>, id: string, p: number) => {
    const list = index.get(id);
    if (list) list.push(p);
    else index.set(id, [p]);
  };
  const file = (p: number) => {
    const t = objectTuple(items[p], setKeys);
    if (t === undefined) return;
    fileUnder(at, tupleId(t), p);
    if (byPrefix === undefined) return;
    for (let n = 1; n < t.length && t[n - 1] !== ''; n++) fileUnder(byPrefix, prefixId(t.slice(0, n)), p);
  };
  for (let p = 0; p < items.length; p++) file(p);
  for (let i = 0; i < remaining.length; i++) {
    const id = ids[i];
    const partial = partials[i];
    if (partial !== undefined) {
      // appendListNode appends it once per key it lacks, deletes the items holding the values it has
      // (by position among the keys: Values [80] is containerPort 80 whatever the protocol; those copies
      // too) and appends it: it ends up last, every item of its leading values before it gone.
      const key = prefixId(partial);
      for (const p of byPrefix!.get(key) ?? []) alive[p] = false;
      byPrefix!.delete(key);
      items.push(inPlace?.[i] ?? remaining[i]);
      alive.push(true);
      file(items.length - 1);
      continue;
    }
    if (id === undefined) continue;
    const state = inPlace?.[i] ?? remaining[i];
    // ElementSetter: the collected items holding the item's values (as it was read) are replaced by it,
    // or, under several keys, deleted and it is appended; none, it is appended.
    const holding = (at.get(id) ?? []).filter((p) => alive[p] && idOf(items[p]) === id);
    at.delete(id);
    if (several || holding.length === 0) {
      for (const p of holding) alive[p] = false;
      items.push(state);
      alive.push(true);
      file(items.length - 1);
    } else {
      for (const p of holding) {
        items[p] = state;
        file(p);
      }
    }
  }
  const result: JsonValue[] = [];
  for (let p = 0; p < items.length; p++) if (alive[p]) result.push(items[p]);
  if (result.length === out.length && result.every((v, p) => v === out[p])) return undefined;
  return { items: result, unwalked: !plain };
}

/** The id under which resourceItemsSet files an item's leading values. */
function prefixId(values: readonly string[]): string {
  return `${values.length}|${tupleId(values)}`;
}

/** The values of a tuple that sets its first keys only (a port without protocol); undefined otherwise. */
function presentPrefix(t: Tuple): string[] | undefined {
  let n = 0;
  while (n < t.length && t[n] !== '') n++;
  for (let k = n; k < t.length; k++) if (t[k] !== '') return undefined;
  return n === 0 ? undefined : t.slice(0, n);
}

/** How many of a tracked list's keys an item of the list or of the overlay (its tuples) sets. */
function setKeyCount(list: TrackedList, tuples: readonly Tuple[]): number {
  let count = 0;
  for (let k = 0; k < list.keys.length; k++) if (list.setsKey(k) || tuples.some((t) => t[k] !== '')) count++;
  return count;
}

/** An index of the collected items' tuples. */
function indexOf(tuples: readonly (Tuple | undefined)[]): TupleIndex {
  const index = new TupleIndex();
  for (let i = 0; i < tuples.length; i++) {
    const t = tuples[i];
    if (t !== undefined) index.add(i, t);
  }
  return index;
}

/** Does every item have a key tuple, no two the same? (What normalizeKeyedList asks to keep a list as is.) */
function distinctlyKeyed(items: JsonArray, keys: readonly string[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const id = keyId(item, keys);
    if (id === undefined || seen.has(id)) return false;
    seen.add(id);
  }
  return true;
}

/** The item type a keyed list was normalized under. */
function resolveElem(type: TypeRef | undefined): Atom {
  const elem = type ? resolve(type).list?.elem : undefined;
  return elem ? resolve(elem) : NO_TYPE;
}

/** A new map holding the fields of `map` that come before `name`, in order. */
function fieldsBefore(map: JsonObject, name: string): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(map)) {
    if (key === name) break;
    setOwn(out, key, map[key]);
  }
  return out;
}

/**
 * The overlay's fields against the base map's: the one the base has too (`shared`, unless `several` do,
 * when the caller takes them from the base's side, in its order), and those the base lacks (`added`).
 */
function splitFields(patch: JsonObject, base: JsonObject): { shared: string | undefined; several: boolean; added: string[] | undefined } {
  let shared: string | undefined;
  let several = false;
  let added: string[] | undefined;
  for (const k in patch) {
    if (!hasOwn(patch, k)) continue;
    if (!hasOwn(base, k)) (added ??= []).push(k);
    else if (shared === undefined) shared = k;
    else several = true;
  }
  return { shared, several, added };
}

/** A map without fields (what a keyed list drops), found without listing its keys. */
function isEmptyMap(v: Walked): boolean {
  if (!isJsonObject(v as JsonValue)) return false;
  for (const key in v as JsonObject) if (hasOwn(v as JsonObject, key)) return false;
  return true;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The `$patch` directive of an overlay map: merge (default), replace or delete. */
function smpDirective(origin: JsonObject, where: { path(): string }): 'merge' | 'replace' | 'delete' {
  const d = getOwn(origin, DIRECTIVE);
  if (d === undefined) return 'merge';
  if (d === 'merge' || d === 'replace' || d === 'delete') return d;
  throw new StrategicMergeError(`strategic merge: ${where.path() || '.'}: unknown patch strategy '${typeof d === 'string' ? d : JSON.stringify(d)}'`);
}

function withoutDirective(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj)) if (k !== DIRECTIVE) setOwn(out, k, obj[k]);
  return out;
}

/**
 * kyaml's list directive: the first overlay item holding `$patch`, when `$patch` is its only key, applies to
 * the whole list (`{$patch: replace}` replaces it, `delete` removes it, `merge` is the default) and is
 * dropped from the overlay. An item with other keys besides `$patch` is an item directive.
 */
function listDirective(origin: JsonArray, where: { path(): string }): { directive: 'merge' | 'replace' | 'delete'; rest: JsonArray } | undefined {
  // A loop, not findIndex: overlays are often a policy's frozen document, whose arrays V8 searches slowly.
  let at = -1;
  for (let i = 0; i < origin.length && at < 0; i++) {
    const item = origin[i];
    if (isJsonObject(item) && hasOwn(item, DIRECTIVE)) at = i;
  }
  if (at < 0 || Object.keys(origin[at] as JsonObject).length !== 1) return undefined;
  const directive = smpDirective(origin[at] as JsonObject, where);
  return { directive, rest: [...origin.slice(0, at), ...origin.slice(at + 1)] };
}

function nonEmpty(v: JsonValue | undefined): boolean {
  return scalarText(v) !== '';
}

/** A `merge` list without a merge key (finalizers): overlay values first, then the resource's, once each. */
function primitiveUnion(dest: JsonArray, origin: JsonArray): JsonArray {
  const out: JsonArray = [];
  const seen = new Set<string>();
  for (const v of [...origin, ...dest]) {
    if (v === null) continue;
    const id = typeof v === 'object' ? JSON.stringify(v) : String(v);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(v);
  }
  return out;
}
