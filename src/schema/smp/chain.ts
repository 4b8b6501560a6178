/**
 * A chain of strategic merges, each into the previous one's result and seen by nothing else until the
 * chain settles (Kyverno: the element merges of one `foreach` entry). A keyed list that a merge of the
 * chain built keeps its identity through the later merges, which edit a linked list of its items
 * indexed by merge key instead of copying it: a one-item overlay then costs O(1), not O(list), and a
 * foreach over n containers O(n) instead of O(n²). The array itself receives its items at `settle()`.
 */
import type { JsonArray, JsonObject, JsonValue } from '../../json/index.js';
import type { SchemaRegistry } from '../registry.js';
import type { Atom } from '../types.js';
import { isFull, objectTuple, someStrictProjection, tupleId, type Tuple } from './tuples.js';

/** Shorter lists are cheaper to rebuild than to index. */
const TRACK_MIN_ITEMS = 8;

interface Item {
  readonly id: string;
  readonly value: JsonValue;
  prev: Item | undefined;
  next: Item | undefined;
}

/** Items by the values they hold for one subset of the keys (a bucket of one item is that item). */
type Projection = Map<string, Item | Set<Item>>;

/**
 * A keyed list under edit. Invariant (checked when tracking starts, kept by `replace`): every item is a
 * map that sets some merge key, no item holds every key value another item sets (so no two share a key
 * tuple, and an item that sets only some keys, a port without `protocol`, is the only one with those
 * values), and each is as a walk without overlay leaves it (normalized under `elem`), so merges may
 * leave untouched items unwalked.
 */
export class TrackedList {
  private head: Item | undefined;
  private tail: Item | undefined;
  private readonly byId = new Map<string, Item>();
  /**
   * Built on the first lookup of a partial tuple setting that subset of the keys (bit i: keys[i]), then
   * kept up to date: the items by the values they hold for those keys (kyaml matches an overlay item
   * that sets only some keys, `containerPort` of a port, with every item holding those values).
   */
  private projections: Map<number, Projection> | undefined;
  /** How many items set only some of the keys. */
  private partialItems = 0;
  /** With several keys: how many items set each key. */
  private readonly keyCounts: number[];
  private changed = false;

  private constructor(
    readonly array: JsonArray,
    readonly elem: Atom,
    readonly keys: readonly string[],
  ) {
    this.keyCounts = new Array<number>(keys.length).fill(0);
  }

  /** The list under edit when its items keep the invariant; undefined otherwise. */
  static of(array: JsonArray, elem: Atom, keys: readonly string[]): TrackedList | undefined {
    const list = new TrackedList(array, elem, keys);
    let partial: string[][] | undefined;
    for (const value of array) {
      const t = objectTuple(value, keys);
      if (t === undefined) return undefined;
      if (!isFull(t)) {
        if (t.every((v) => v === '')) return undefined;
        (partial ??= []).push(t);
      }
      const id = tupleId(t);
      if (list.byId.has(id)) return undefined;
      list.link(id, value, list.tail, undefined);
    }
    // An item that sets only some keys must not be matched by another item: no item's tuple has it
    // as a projection.
    if (partial !== undefined) {
      const ids = new Set(partial.map(tupleId));
      for (let item = list.head; item !== undefined; item = item.next) {
        if (someStrictProjection(objectTuple(item.value, keys)!, (id) => ids.has(id))) return undefined;
      }
    }
    return list;
  }

  /** Do some items set only some of the keys? */
  hasPartialItems(): boolean {
    return this.partialItems > 0;
  }

  /** Does some item set the key at this index? (Known for lists with several keys only.) */
  setsKey(index: number): boolean {
    return this.keyCounts[index] > 0;
  }

  /** Is there an item whose tuple has this id? */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  fits(elem: Atom, keys: readonly string[]): boolean {
    if (elem !== this.elem || keys.length !== this.keys.length) return false;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== this.keys[i]) return false;
    return true;
  }

  get(id: string): JsonValue | undefined {
    return this.byId.get(id)?.value;
  }

  /**
   * The id of the one item holding every value the partial tuple `t` sets; undefined when no item or
   * several do.
   */
  onlyMatch(t: Tuple): string | undefined {
    let mask = 0;
    for (let i = 0; i < t.length; i++) if (t[i] !== '') mask |= 1 << i;
    this.projections ??= new Map();
    let projection = this.projections.get(mask);
    if (projection === undefined) {
      projection = new Map();
      this.projections.set(mask, projection);
      for (let item = this.head; item !== undefined; item = item.next) file(projection, this.projectionId(item, mask), item);
    }
    const bucket = projection.get(tupleId(t));
    return bucket === undefined || bucket instanceof Set ? undefined : bucket.id;
  }

  /**
   * One merge's edit: the items named by `ids` leave their places; `values[i]` (undefined: deleted)
   * then lead the list in the order of `ids` (kyaml prepends the items an overlay names).
   */
  replace(ids: readonly string[], values: readonly (JsonValue | undefined)[]): void {
    for (const id of ids) {
      const item = this.byId.get(id);
      if (item !== undefined) this.unlink(item);
    }
    for (let i = ids.length - 1; i >= 0; i--) {
      const value = values[i];
      if (value !== undefined) this.link(ids[i], value, undefined, this.head);
    }
    this.changed = true;
  }

  /**
   * One merge's edit of a list with several merge keys: the items named by `ids` that the list holds keep
   * their places (`values[i]`, or removed when undefined); the others lead the list in the order of `ids`
   * (kyaml sets the resource's items after the overlay's new ones, in their own order).
   */
  replaceInPlace(ids: readonly string[], values: readonly (JsonValue | undefined)[]): void {
    const added: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const item = this.byId.get(ids[i]);
      if (item === undefined) {
        added.push(i);
        continue;
      }
      const { prev, next } = item;
      this.unlink(item);
      const value = values[i];
      if (value !== undefined) this.link(ids[i], value, prev, next);
    }
    for (let a = added.length - 1; a >= 0; a--) {
      const value = values[added[a]];
      if (value !== undefined) this.link(ids[added[a]], value, undefined, this.head);
    }
    this.changed = true;
  }

  /** Writes the items into the array. */
  write(): void {
    if (!this.changed) return;
    this.array.length = this.byId.size;
    let i = 0;
    for (let item = this.head; item !== undefined; item = item.next) this.array[i++] = item.value;
    this.changed = false;
  }

  private link(id: string, value: JsonValue, prev: Item | undefined, next: Item | undefined): void {
    const item: Item = { id, value, prev, next };
    if (prev) prev.next = item;
    else this.head = item;
    if (next) next.prev = item;
    else this.tail = item;
    this.byId.set(id, item);
    if (this.keys.length > 1) this.count(value, 1);
    if (this.projections !== undefined) for (const [mask, projection] of this.projections) file(projection, this.projectionId(item, mask), item);
  }

  private unlink(item: Item): void {
    if (item.prev) item.prev.next = item.next;
    else this.head = item.next;
    if (item.next) item.next.prev = item.prev;
    else this.tail = item.prev;
    this.byId.delete(item.id);
    if (this.keys.length > 1) this.count(item.value, -1);
    if (this.projections !== undefined) for (const [mask, projection] of this.projections) unfile(projection, this.projectionId(item, mask), item);
  }

  /** Counts an item's keys in or out (`by` 1 or -1). */
  private count(value: JsonValue, by: number): void {
    const t = objectTuple(value, this.keys)!;
    if (!isFull(t)) this.partialItems += by;
    for (let i = 0; i < t.length; i++) if (t[i] !== '') this.keyCounts[i] += by;
  }

  /** The id of the item's key values for the keys in `mask` ('' for the others), as tupleId gives it. */
  private projectionId(item: Item, mask: number): string {
    // Every item sets every key (the invariant).
    const t = objectTuple(item.value, this.keys)!;
    for (let i = 0; i < t.length; i++) if ((mask & (1 << i)) === 0) t[i] = '';
    return tupleId(t);
  }
}

function file(projection: Projection, id: string, item: Item): void {
  const bucket = projection.get(id);
  if (bucket === undefined) projection.set(id, item);
  else if (bucket instanceof Set) bucket.add(item);
  else projection.set(id, new Set([bucket, item]));
}

function unfile(projection: Projection, id: string, item: Item): void {
  const bucket = projection.get(id);
  if (bucket === item) projection.delete(id);
  else if (bucket instanceof Set) {
    bucket.delete(item);
    if (bucket.size === 1) projection.set(id, bucket.values().next().value!);
  }
}

/**
 * Pass the same chain to merges that each take the previous one's result. Until `settle()`, those
 * results hold lists whose items are written only then: give them to nothing but the chain's next
 * merge (not to other merges, not to anything that reads them). `settle()` writes them and ends the
 * chain (a later merge with it starts a new one); a chain abandoned after an error leaves its results
 * unusable, which is fine when they are dropped with the error.
 */
export class StrategicMergeChain {
  private readonly lists = new Map<JsonArray, TrackedList>();
  /** Maps of plain types (labels, annotations) the chain's merges built: later merges edit them in place. */
  private readonly owned = new Set<JsonObject>();
  private bound: { registry: SchemaRegistry; infer: boolean } | undefined;

  /** Writes every list the chain's merges kept aside into its array and forgets them. */
  settle(): void {
    for (const list of this.lists.values()) list.write();
    this.lists.clear();
    this.owned.clear();
  }

  /**
   * Writes every list the chain's merges kept aside into its array, and keeps them under edit: the
   * chain goes on. The latest result may then be read (Kyverno: an overlay's anchors reading the
   * resource's lists) but not kept, as the chain's next merge edits those arrays again. A foreach over
   * n containers whose overlay reads the list then costs one array write per element instead of
   * indexing the list again for its next merge (n² Map operations).
   */
  flush(): void {
    for (const list of this.lists.values()) list.write();
  }

  /**
   * The item of a list kept under edit whose value for `key`, the list's only merge key, has the scalar
   * text `text` (80 and "80" alike; each item has one, and no two the same); null when no item has it;
   * undefined when the chain keeps no such list in `array`. Constant time: a foreach whose overlay names
   * its element by a condition anchor finds that item without reading the others.
   */
  itemByKey(array: JsonArray, key: string, text: string): JsonValue | null | undefined {
    const list = this.tracked(array);
    if (list === undefined || list.keys.length !== 1 || list.keys[0] !== key) return undefined;
    return list.get(text) ?? null;
  }

  /** @internal True when the chain serves merges with these options (the first merge binds it). */
  serves(registry: SchemaRegistry, infer: boolean): boolean {
    this.bound ??= { registry, infer };
    // Inferred merge keys are read from the list's items, which a tracked array does not hold yet.
    return !infer && this.bound.registry === registry && this.bound.infer === infer;
  }

  /** @internal The list under edit whose array this is. */
  tracked(array: JsonArray): TrackedList | undefined {
    return this.lists.size === 0 ? undefined : this.lists.get(array);
  }

  /** @internal Keeps a freshly merged keyed list under edit when its items allow it. */
  track(array: JsonArray, elem: Atom, keys: readonly string[]): void {
    if (array.length < TRACK_MIN_ITEMS) return;
    const list = TrackedList.of(array, elem, keys);
    if (list !== undefined) this.lists.set(array, list);
  }

  /**
   * @internal A map of a plain type (./plain-maps.ts) that a merge of the chain built: read by nothing
   * but the chain's merges, which may edit it in place (a foreach adding a label per element then
   * costs O(1), not a copy of every label so far).
   */
  own(map: JsonObject): void {
    this.owned.add(map);
  }

  /** @internal Was `map` built by a merge of the chain, and not measured since? */
  owns(map: JsonObject): boolean {
    return this.owned.size !== 0 && this.owned.has(map);
  }

  /** @internal A value whose size was recorded: it must not change any more. */
  disown(value: object): void {
    if (this.owned.size !== 0) this.owned.delete(value as JsonObject);
  }

  /** @internal Writes one list's items and stops tracking it (a walk is about to read its items). */
  release(array: JsonArray): void {
    const list = this.lists.get(array);
    if (list === undefined) return;
    list.write();
    this.lists.delete(array);
  }
}
