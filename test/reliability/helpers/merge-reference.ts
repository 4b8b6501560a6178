/**
 * Differential oracle for test/reliability/merge-linear.test.ts: src/schema/smp/merge.ts as it was at
 * commit 34dff6a, before keyed lists were indexed and foreach merges chained. It matched keyed-list items
 * by scanning (quadratic) and was checked against the Kyverno vectors. Changed since: its imports, and
 * nulls of the resource the overlay does not name are kept (kyaml >= 0.17, as merge.ts now does).
 */
import { getOwn, hasOwn, isJsonObject, setOwn, type JsonArray, type JsonObject, type JsonValue } from '../../../src/json/index.js';
import { SchemaRegistry } from '../../../src/schema/registry.js';
import { resolve, type Atom, type FieldDef, type MapDef, type TypeRef } from '../../../src/schema/types.js';

/** A strategic merge that cannot be done (mismatched node kinds, unknown `$patch`, list items without a key). */
export class StrategicMergeError extends Error {
  override name = 'StrategicMergeError';
}

export type StrategicMergeResult = { ok: true; value: JsonObject } | { ok: false; error: StrategicMergeError };

export interface StrategicMergeOptions {
  /** Where built-in kinds' patch strategies come from (default: SchemaRegistry.builtin()). */
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
}

const DIRECTIVE = '$patch';

/** What a walk of one node gives: a value, or DELETE (the field or item goes away). */
const DELETE = Symbol('delete');
type Walked = JsonValue | undefined | typeof DELETE;

/**
 * Kyverno's `patchStrategicMerge` merge step: kustomize kyaml `merge2` with list increase direction
 * *prepend* (what the patchstrategicmerge filter sets), after anchors were resolved into a plain overlay.
 *
 * - maps merge recursively; `null` in the overlay deletes the key (nulls the resource holds where the
 *   overlay has nothing stay); `$patch: delete | replace | merge` on a map;
 * - lists whose field has patch strategy `merge` are merged by their merge key(s) (the list-map keys when the
 *   schema has them, else `patchMergeKey`; matching uses only the keys an overlay item sets), or, without a
 *   key, as a union of scalars; items the overlay names come first in overlay order, then the untouched
 *   resource items in their order; an overlay item `{$patch: replace}` drops the resource's items;
 * - every other list (no strategy, `retainKeys`/`replace`, unknown kinds, custom resources) is replaced.
 *
 * Never modifies its inputs; the result may share untouched scalars and replaced lists with them.
 * Resource subtrees the overlay does not touch are walked too (kyaml merges their
 * duplicate list keys) and given back as they are when there was nothing to do; with `options.cache`,
 * merges into the result of an earlier one skip the subtrees that earlier walks found so.
 */
export function referenceStrategicMerge(resource: JsonValue, overlay: JsonValue, options: StrategicMergeOptions = {}): StrategicMergeResult {
  if (!isJsonObject(resource)) return { ok: false, error: new StrategicMergeError('strategic merge: the resource is not an object') };
  if (!isJsonObject(overlay)) return { ok: false, error: new StrategicMergeError('strategic merge: the patch is not an object') };
  const registry = options.registry ?? SchemaRegistry.builtin();
  const root = rootType(registry, resource) ?? rootType(registry, overlay);
  try {
    const infer = options.inferListMergeKey ?? false;
    const out = new Merger(registry, infer, options.cache?.normalizedFor(registry, infer)).walk(resource, overlay, root, undefined, '');
    if (!isJsonObject(out)) throw new StrategicMergeError('strategic merge: the patch deletes the whole resource');
    return { ok: true, value: out };
  } catch (err) {
    if (err instanceof StrategicMergeError) return { ok: false, error: err };
    throw err;
  }
}

/** Only built-in kinds have patch strategies (kyaml knows nothing of CRDs). */
function rootType(registry: SchemaRegistry, obj: JsonObject): TypeRef | undefined {
  const apiVersion = getOwn(obj, 'apiVersion');
  const kind = getOwn(obj, 'kind');
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

  constructor(
    private readonly registry: SchemaRegistry,
    private readonly infer: boolean,
    private readonly normalized: Normalized | undefined,
  ) {}

  walk(dest: JsonValue | undefined, origin: JsonValue | undefined, type: TypeRef | undefined, field: FieldDef | undefined, path: string): Walked {
    // kyaml takes the kind of the first side that is neither missing nor null; the other must agree.
    const dk = kindOf(dest);
    const ok = kindOf(origin);
    if (dk !== undefined && ok !== undefined && dk !== ok) {
      throw new StrategicMergeError(`strategic merge: wrong node kind at ${path || '.'}: expected ${KIND_NAMES[dk]} but got ${KIND_NAMES[ok]}`);
    }
    switch (dk ?? ok) {
      case 'list':
        return this.list(dest as JsonArray | null | undefined, origin as JsonArray | null | undefined, type, field, path);
      case 'scalar':
        return origin !== undefined ? origin : dest;
      default:
        return this.map(dest as JsonObject | null | undefined, origin as JsonObject | null | undefined, type, path);
    }
  }

  private map(dest: JsonObject | null | undefined, origin: JsonObject | null | undefined, type: TypeRef | undefined, path: string): Walked {
    if (origin === undefined) return dest ? this.normalizeMap(dest, type, path) : undefined;
    let base: JsonObject | null | undefined;
    const directive = origin ? smpDirective(origin, path) : 'merge';
    const patch = origin && hasOwn(origin, DIRECTIVE) ? withoutDirective(origin) : origin;
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
    const def = type ? resolve(type).map : undefined;
    const outer = this.clean;
    this.clean = true;
    const out: JsonObject = {};
    // kyaml walks the union of field names in sorted order and appends new fields at the end.
    for (const name of Object.keys(base)) {
      const dv = base[name];
      const ov = base === patch ? dv : patch ? getOwn(patch, name) : undefined;
      // A scalar or null the overlay does not touch is kept without a walk.
      if (ov === undefined && (dv === null || typeof dv !== 'object')) {
        setOwn(out, name, dv);
      } else {
        this.put(out, name, dv, ov, def, path);
      }
    }
    if (patch && base !== patch) {
      const added = Object.keys(patch).filter((k) => !hasOwn(base, k));
      if (added.length > 1) added.sort();
      for (const name of added) this.put(out, name, undefined, patch[name], def, path);
    }
    if (this.clean && given) this.normalized?.maps.set(out, given);
    this.clean &&= outer;
    return out;
  }

  private put(out: JsonObject, name: string, dv: JsonValue | undefined, ov: JsonValue | undefined, def: MapDef | undefined, path: string): void {
    const field = def?.fields?.get(name);
    const r = this.walk(dv, ov, field ? field.type : def?.elem, field, `${path}.${name}`);
    if (r !== undefined && r !== null && r !== DELETE) setOwn(out, name, r);
  }

  /** A resource map the overlay does not touch: kept as is, nulls included. */
  private normalizeMap(dest: JsonObject, type: TypeRef | undefined, path: string): JsonObject {
    const typeSeen = type ? resolve(type) : NO_TYPE;
    if (this.normalized?.maps.get(dest) === typeSeen) return dest;
    type ??= rootType(this.registry, dest);
    const def = type ? resolve(type).map : undefined;
    const outer = this.clean;
    this.clean = true;
    let out: JsonObject | undefined;
    const keys = Object.keys(dest);
    for (let i = 0; i < keys.length; i++) {
      const name = keys[i];
      const v = dest[name];
      let r: Walked = v;
      if (v !== null && typeof v === 'object') {
        const field = def?.fields?.get(name);
        r = this.walk(v, undefined, field ? field.type : def?.elem, field, `${path}.${name}`);
      }
      if (r !== v && out === undefined) {
        out = {};
        for (let j = 0; j < i; j++) setOwn(out, keys[j], dest[keys[j]]);
      }
      if (out !== undefined && (r === v || (r !== undefined && r !== null && r !== DELETE))) setOwn(out, name, r as JsonValue);
    }
    if (this.clean) this.normalized?.maps.set(out ?? dest, typeSeen);
    this.clean &&= outer;
    return out ?? dest;
  }

  /** kyaml's PatchStrategyAndKeyList + IsAssociative, or inference by `name` where there is no schema. */
  private listKeys(type: TypeRef | undefined, field: FieldDef | undefined, dest: JsonArray | null | undefined, origin: JsonArray | null | undefined, path: string): string[] | undefined {
    const listDef = type ? resolve(type).list : undefined;
    if (type && listDef) {
      if (!field?.patchStrategy || !MERGE_STRATEGY.test(field.patchStrategy)) return undefined;
      if (listDef.listType === 'map' && listDef.keys.length > 0) return listDef.keys as string[];
      return field?.patchMergeKey ? [field.patchMergeKey] : [];
    }
    if (!this.infer || type) return undefined;
    let key: string | undefined;
    for (const side of [dest, origin]) {
      if (!side || side.length === 0) continue;
      const k = side.every((item) => isJsonObject(item) && nonEmpty(getOwn(item, 'name'))) ? 'name' : '';
      if (key !== undefined && key !== k) throw new StrategicMergeError(`strategic merge: conflicting merge keys [${key},${k}] for field ${path.slice(1)}`);
      key = k;
    }
    return key ? [key] : undefined;
  }

  private list(dest: JsonArray | null | undefined, origin: JsonArray | null | undefined, type: TypeRef | undefined, field: FieldDef | undefined, path: string): Walked {
    const keys = this.listKeys(type, field, dest, origin, path);
    if (keys === undefined) return origin !== undefined ? origin : dest; // replaced whole (null clears)
    if (origin === null) return dest === undefined || dest === null ? origin : DELETE;
    let directive: 'merge' | 'replace' | 'delete' = 'merge';
    if (origin !== undefined) {
      const d = listDirective(origin, path);
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
    const elem = type ? resolve(type).list?.elem : undefined;
    if (keys.length === 0) return origin === undefined ? dest : primitiveUnion(dest, origin);
    if (origin === undefined) {
      const same = this.normalizeKeyedList(dest, keys, elem, path);
      if (same !== undefined) return same;
    }
    return this.keyedList(dest, origin ?? [], keys, elem, path);
  }

  /** An untouched keyed list with unique keys: its items, each normalized; undefined when it needs the full walk. */
  private normalizeKeyedList(dest: JsonArray, keys: string[], elem: TypeRef | undefined, path: string): JsonArray | undefined {
    const elemSeen = elem ? resolve(elem) : NO_TYPE;
    const known = this.normalized?.lists.get(dest);
    if (known !== undefined && known.elem === elemSeen && sameKeys(known.keys, keys)) return dest;
    const seen = new Set<string>();
    let out: JsonArray | undefined;
    for (let i = 0; i < dest.length; i++) {
      const item = dest[i];
      const tuple = keyTuple(item, keys);
      if (!tuple) return undefined;
      if (keys.length > 1 && tuple.includes('')) return undefined;
      const id = tupleId(tuple);
      if (seen.has(id)) return undefined;
      seen.add(id);
      const r = this.walk(item, undefined, elem, undefined, `${path}[${i}]`);
      if (r === undefined || r === null || r === DELETE || (isJsonObject(r) && Object.keys(r).length === 0)) return undefined;
      if (r !== item && out === undefined) out = dest.slice(0, i);
      if (out !== undefined) out.push(r);
    }
    if (out !== undefined) return out;
    this.normalized?.lists.set(dest, { elem: elemSeen, keys });
    return dest;
  }

  private keyedList(dest: JsonArray, patchItems: JsonArray, keys: string[], elem: TypeRef | undefined, path: string): Walked {
    const outer = this.clean;
    this.clean = true;
    // Every item's key values are read once; matching compares them (see tupleMatches).
    const tuples: string[][] = [];
    const seen = new Set<string>();
    const patchTuples: string[][] = [];
    for (let i = 0; i < patchItems.length; i++) {
      const t = keyTuple(patchItems[i], keys);
      if (!t) throw new StrategicMergeError(`strategic merge: ${path}[${i}]: list item has no merge key (${keys.join(', ')})`);
      patchTuples.push(t);
      const id = tupleId(t);
      if (!seen.has(id)) {
        tuples.push(t);
        seen.add(id);
      }
    }
    const keyless: JsonValue[] = [];
    const remaining: JsonValue[] = [];
    const remainingTuples: string[][] = [];
    for (const item of dest) {
      const t = keyTuple(item, keys);
      if (!t) {
        keyless.push(item);
        continue;
      }
      remaining.push(item);
      remainingTuples.push(t);
      const id = tupleId(t);
      if (!seen.has(id)) {
        tuples.push(t);
        seen.add(id);
      }
    }
    // kyaml merges into the resource's item nodes in place; a later tuple that finds the same item sees the merge.
    const merged = new Map<JsonValue, JsonValue>();
    const walkedInto = new Map<JsonValue, JsonValue>();
    let out: JsonValue[] = [];
    const outTuples: (string[] | undefined)[] = [];
    // kyaml's mergeValues under several keys: partial tuples completed by the tuples they match.
    for (const tuple of keys.length > 1 ? referenceMergeValues(tuples) : tuples) {
      const at = firstMatch(remainingTuples, tuple);
      const found = at < 0 ? undefined : remaining[at];
      const d = found === undefined ? undefined : (merged.get(found) ?? found);
      const patchAt = firstMatch(patchTuples, tuple);
      const o = patchAt < 0 ? undefined : patchItems[patchAt];
      const v = d === undefined && o === undefined ? undefined : this.walk(d, o, elem, undefined, `${path}[${tuple.filter(Boolean).join(',')}]`);
      if (v === undefined || v === null || v === DELETE || (isJsonObject(v) && Object.keys(v).length === 0)) {
        // kyaml deletes the matching items from the resource's list, so later tuples cannot find them
        for (let i = remaining.length - 1; i >= 0; i--) {
          if (tupleMatches(remainingTuples[i], tuple)) {
            remaining.splice(i, 1);
            remainingTuples.splice(i, 1);
          }
        }
        continue;
      }
      if (found !== undefined) merged.set(found, v);
      // The walk took the overlay's item for `$patch: replace`: the resource's item is left as it was.
      if (found !== undefined && !(isJsonObject(o) && o.$patch === 'replace')) walkedInto.set(found, v);
      // kyaml's ElementSetter: replace the items already collected under these keys, else append
      let replaced = false;
      for (let i = 0; i < out.length; i++) {
        if (tupleMatches(outTuples[i], tuple)) {
          out[i] = v;
          outTuples[i] = objectTuple(v, keys);
          replaced = true;
        }
      }
      if (!replaced) {
        out.push(v);
        outTuples.push(objectTuple(v, keys));
      }
    }
    if (keyless.length > 0) {
      this.clean = false;
      return [...out, ...keyless];
    }
    // kyaml's appendListNode (list prepend): each resource item, in order and as the walk left it, is set
    // into the collected items by ElementSetter under the keys some item sets; with several keys it is
    // deleted first, then appended; an item lacking a value for one of several keys as described below.
    // (Under one key such an item is keyless, handled above.)
    const setAt = keys.map((_, k) => k).filter((k) => tuples.some((t) => t[k] !== ''));
    const setKeys = setAt.length > 0 ? setAt : keys.map((_, k) => k);
    // Read as kyaml reads them then: a merged item's values as merged (edited in place), another's as read.
    const valuesOf = (i: number) => {
      const merged = walkedInto.get(remaining[i]);
      return merged === undefined ? remainingTuples[i] : objectTuple(merged, keys);
    };
    const several = setKeys.length > 1;
    // Under several keys an item may lack the last ones (a port without protocol), not an earlier one.
    const modelled = (i: number) => {
      const present = setKeys.map((k) => (valuesOf(i)?.[k] ?? '') !== '');
      return present.every(Boolean) || (several && present[0] && present.every((p, j) => p || !present.slice(j).some(Boolean)));
    };
    if (remaining.every((_, i) => modelled(i))) {
      let list = out.slice();
      for (let i = 0; i < remaining.length; i++) {
        const state = walkedInto.get(remaining[i]) ?? remaining[i];
        const values = valuesOf(i)!;
        if (setKeys.some((k) => values[k] === '')) {
          // appendListNode: appended once per key it lacks, then the items holding the values it has
          // deleted (those copies too), then appended.
          const has = setKeys.filter((k) => values[k] !== '').map((k) => values[k]);
          for (const k of setKeys) if (values[k] === '') list.push(state);
          list = list.filter((item) => {
            const t = objectTuple(item, keys);
            return !(t !== undefined && has.every((v, j) => t[setKeys[j]] === v));
          });
          list.push(state);
          continue;
        }
        const holds = (item: JsonValue) => {
          const t = objectTuple(item, keys);
          return t !== undefined && setKeys.every((k) => t[k] === values[k]);
        };
        if (setKeys.length > 1) list = list.filter((item) => !holds(item));
        let found = false;
        list = list.map((item) => (holds(item) ? ((found = true), state) : item));
        if (!found) list.push(state);
      }
      if (list.length !== out.length || list.some((v, i) => v !== out[i])) this.clean = false;
      out = list;
    }
    if (this.clean) this.normalized?.lists.set(out, { elem: elem ? resolve(elem) : NO_TYPE, keys });
    this.clean &&= outer;
    return out;
  }
}

/** A field's patch strategy (`merge`, `merge,retainKeys`, `retainKeys`, `replace`) includes `merge`. */
const MERGE_STRATEGY = /(?:^|,)merge(?:,|$)/;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The `$patch` directive of an overlay map: merge (default), replace or delete. */
function smpDirective(origin: JsonObject, path: string): 'merge' | 'replace' | 'delete' {
  const d = getOwn(origin, DIRECTIVE);
  if (d === undefined) return 'merge';
  if (d === 'merge' || d === 'replace' || d === 'delete') return d;
  throw new StrategicMergeError(`strategic merge: ${path || '.'}: unknown patch strategy '${typeof d === 'string' ? d : JSON.stringify(d)}'`);
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
function listDirective(origin: JsonArray, path: string): { directive: 'merge' | 'replace' | 'delete'; rest: JsonArray } | undefined {
  const at = origin.findIndex((item) => isJsonObject(item) && hasOwn(item, DIRECTIVE));
  if (at < 0 || Object.keys(origin[at] as JsonObject).length !== 1) return undefined;
  const directive = smpDirective(origin[at] as JsonObject, path);
  return { directive, rest: [...origin.slice(0, at), ...origin.slice(at + 1)] };
}

/** kyaml compares key values as YAML scalar text: 80 and "80" name the same item. */
function scalarText(v: JsonValue | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? '' : String(v);
}

function nonEmpty(v: JsonValue | undefined): boolean {
  return scalarText(v) !== '';
}

/** The item's key values (empty string where a key is missing), or undefined when it has none at all. */
function keyTuple(item: JsonValue, keys: string[]): string[] | undefined {
  const t = objectTuple(item, keys);
  return t !== undefined && t.some((v) => v !== '') ? t : undefined;
}

/** The key values of a map item (empty strings where missing); undefined for anything else. */
function objectTuple(item: JsonValue, keys: string[]): string[] | undefined {
  if (!isJsonObject(item)) return undefined;
  const t: string[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) t[i] = scalarText(getOwn(item, keys[i]));
  return t;
}

function tupleId(t: string[]): string {
  return t.length === 1 ? t[0] : t.join('\u0000');
}

/**
 * kyaml validateKeys: an item matches a tuple on the keys the tuple sets (an item whose tuple is undefined,
 * not a map, matches nothing).
 */
function tupleMatches(itemTuple: string[] | undefined, tuple: string[]): boolean {
  if (itemTuple === undefined) return false;
  for (let i = 0; i < tuple.length; i++) if (tuple[i] !== '' && itemTuple[i] !== tuple[i]) return false;
  return true;
}

/** kyaml's mergeValues, literally: every ordered pair, the first as it stood when its turn came. */
function referenceMergeValues(tuples: string[][]): string[][] {
  const list = tuples.map((t) => t.slice());
  for (let i = 0; i < list.length; i++) {
    const first = list[i];
    for (let j = 0; j < list.length; j++) {
      const second = list[j];
      let common = false;
      let conflict = false;
      const res = first.map((v, k) => {
        if (v === second[k]) common = true;
        else if (v !== '' && second[k] !== '') conflict = true;
        return v !== '' ? v : second[k];
      });
      if (common && !conflict) {
        list[i] = res;
        list[j] = res;
      }
    }
  }
  return list;
}

function firstMatch(itemTuples: string[][], tuple: string[]): number {
  for (let i = 0; i < itemTuples.length; i++) if (tupleMatches(itemTuples[i], tuple)) return i;
  return -1;
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
