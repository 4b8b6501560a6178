/**
 * Which items of a resource list can meet the `(key): value` conditions at the top of an overlay list
 * item, found without checking every item.
 *
 * Kyverno tries each overlay item against every resource item (processListOfMaps in
 * pkg/engine/mutate/patch/strategicPreprocessing.go): n × m checks, n² in a foreach over n containers
 * whose overlay names its element (`(name): "{{ element.name }}"`). But a condition whose value is
 * literal text (isLiteralPattern) is met by exactly the items holding a scalar of that text under `key`,
 * so an index of the list by that text finds them; items holding a map or a list there are returned too
 * (the pattern language decides those). The caller still checks every condition on what it gets, in the
 * list's order: the items that pass are the ones Kyverno's loop keeps, in the same order.
 */
import type { ReviewGuard } from '../../guard/index.js';
import { hasOwn, isJsonObject, type JsonArray, type JsonObject, type JsonValue } from '../../json/index.js';
import { isLiteralPattern } from '../match/pattern.js';
import { parseAnchor } from './anchors.js';

/**
 * A list's item whose only merge key `key` holds a scalar of text `text`, from the foreach chain that
 * keeps the list under edit (null: no such item); undefined when it does not index `array` so.
 */
export type KeyedItemLookup = (array: JsonArray, key: string, text: string) => JsonValue | null | undefined;

/** Kyverno compares scalar condition operands as their YAML text. */
export function asConditionOperand(value: JsonValue): JsonValue {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return value;
}

/** One list's items by the text of one key: positions holding a scalar, and those holding a map or list. */
interface TextIndex {
  readonly byText: Map<string, number[]>;
  readonly others: number[];
}

/**
 * The indexes built during one anchor pre-processing (the resource does not change during it): a list is
 * indexed by a key when a second overlay item asks about that key (the first one's answer is a scan,
 * cheaper than building a map the pre-processing would not use again: a foreach element's overlay).
 */
export class ConditionCandidates {
  /** Per list and key: its index, or null once scanned. */
  private readonly indexes = new Map<JsonArray, Map<string, TextIndex | null>>();

  constructor(
    private readonly guard: ReviewGuard,
    private readonly lookup: KeyedItemLookup | undefined,
  ) {}

  /** The items of `items` that may meet `item`'s top conditions, in order; all of them when none is literal. */
  of(items: JsonArray, item: JsonObject): readonly JsonValue[] {
    const condition = literalCondition(item);
    if (condition === undefined) return items;
    const [key, text] = condition;
    const found = this.lookup?.(items, key, text);
    if (found !== undefined) return found === null ? [] : [found];
    return this.holding(items, key, text);
  }

  /** The items holding `text` (or a map or list) under `key`, in order: a scan the first time, then an index. */
  private holding(items: JsonArray, key: string, text: string): JsonValue[] {
    let byKey = this.indexes.get(items);
    if (byKey === undefined) this.indexes.set(items, (byKey = new Map()));
    let index = byKey.get(key);
    if (index === undefined) {
      byKey.set(key, null);
      return this.scan(items, key, text);
    }
    if (index === null) byKey.set(key, (index = this.indexOf(items, key)));
    const hits = index.byText.get(text);
    if (index.others.length === 0) return hits === undefined ? [] : hits.map((i) => items[i]);
    return mergePositions(hits ?? [], index.others).map((i) => items[i]);
  }

  /** holding() by reading each item. */
  private scan(items: JsonArray, key: string, text: string): JsonValue[] {
    const out: JsonValue[] = [];
    for (const resourceItem of items) {
      this.guard.tick();
      const operand = operandAt(resourceItem, key);
      if (operand !== undefined && (typeof operand !== 'string' || operand === text)) out.push(resourceItem);
    }
    return out;
  }

  private indexOf(items: JsonArray, key: string): TextIndex {
    const index: TextIndex = { byText: new Map(), others: [] };
    for (let i = 0; i < items.length; i++) {
      this.guard.tick();
      const operand = operandAt(items[i], key);
      if (operand === undefined) continue;
      if (typeof operand !== 'string') index.others.push(i);
      else {
        const bucket = index.byText.get(operand);
        if (bucket === undefined) index.byText.set(operand, [i]);
        else bucket.push(i);
      }
    }
    return index;
  }
}

/** The condition operand an item holds under `key`; undefined when it is no map or has no `key` (the condition fails). */
function operandAt(resourceItem: JsonValue, key: string): JsonValue | undefined {
  return isJsonObject(resourceItem) && hasOwn(resourceItem, key) ? asConditionOperand(resourceItem[key]) : undefined;
}

/** The first `(key)` condition at the item's top whose value is literal text: [key, text]. */
function literalCondition(item: JsonObject): [string, string] | undefined {
  for (const name in item) {
    if (!name.includes('(')) continue;
    const anchor = parseAnchor(name);
    if (anchor?.type !== 'condition') continue;
    const value = item[name];
    // A map or list value is a pattern tree (or, holding `+()`, only asks for the key).
    if (typeof value === 'object' && value !== null) continue;
    const text = asConditionOperand(value) as string;
    if (isLiteralPattern(text)) return [anchor.key, text];
  }
  return undefined;
}

/** Two ascending position lists as one. */
function mergePositions(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}
