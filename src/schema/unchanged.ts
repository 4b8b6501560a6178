import type { JsonValue } from '../json/index.js';

/**
 * Walks that re-check a document against a version of it known to be fine (`base`) look only at what
 * changed: documents are never modified in place, so an edit (a JSON patch, a merge) copies the containers
 * on the way to what it changes and shares every other subtree with its input.
 */

/** True when `v` is an object or array that is the very one `base` holds at this place (no need to look). */
export function unchanged(v: JsonValue | undefined, base: JsonValue | undefined): boolean {
  return v === base && v !== null && typeof v === 'object';
}

/**
 * Which item of the base list an item of the new list corresponds to: the item at the same index while the
 * lengths agree (an edit in place) or while the items agree (an append), otherwise the identical item if
 * the base holds it (items shifted by an insertion or removal), else the one at the same index (every item
 * of the base has the item type).
 */
export class ItemPairing {
  private members: Set<JsonValue> | undefined;
  /** Whether an item before the current one differed from the base item at its index. */
  private shifted = false;
  private constructor(
    private readonly base: readonly JsonValue[],
    private readonly length: number,
  ) {}

  /** The pairing of a new list of `length` items with `base`, or undefined when `base` has no items. */
  static of(base: JsonValue | undefined, length: number): ItemPairing | undefined {
    return Array.isArray(base) && base.length > 0 ? new ItemPairing(base, length) : undefined;
  }

  /** Asked for each item in order. */
  baseFor(item: JsonValue, i: number): JsonValue | undefined {
    const inBase = i < this.base.length;
    const atIndex = inBase ? this.base[i] : undefined;
    if (atIndex === item || this.length === this.base.length || item === null || typeof item !== 'object') return atIndex;
    if (inBase) this.shifted = true;
    else if (!this.shifted) return undefined; // appended after every base item: new
    this.members ??= new Set(this.base);
    return this.members.has(item) ? item : atIndex;
  }
}
