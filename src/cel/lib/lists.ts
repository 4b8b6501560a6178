import { checkBuiltSize } from '../engine/bounds.js';
import { SORT_BY_KEYS } from '../engine/macros.js';
import { CelOptional } from '../engine/values.js';
import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { actualSize, LIST_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR } from './cost.js';
import { celError } from './errors.js';
import { goSortSlice } from './go-sort.js';
import { celEquals, celTypeName, compareValues, isComparable, isList, listItems } from './values.js';

/**
 * cel-go's lists extension (`ext.Lists`, version 3 and `first`/`last`).
 *
 *   <list>.slice(int, int), <list>.flatten([int]), <list>.distinct(), <list>.reverse(),
 *   <list>.sort(), <list>.sortBy(var, keyExpr), <list>.first(), <list>.last() -> optional,
 *   lists.range(int)
 *
 * `sortBy` is a macro the engine's parser expands (src/cel/engine/macros.ts) into a call of
 * `@sortByAssociatedKeys`, declared here for each comparable key type as cel-go declares it.
 */

/** The element types cel-go can sort (`comparableTypes`). */
export const COMPARABLE_TYPES = [
  'int',
  'uint',
  'double',
  'bool',
  'google.protobuf.Duration',
  'google.protobuf.Timestamp',
  'string',
  'bytes',
] as const;

/**
 * lists.range(n) for n above this fails at once. Under a cost limit the call is not even made (its cost,
 * n + 11, is known from n: see rangeCost); this bounds it where no limit applies.
 */
const MAX_RANGE = 1_000_000;

function slice(list: unknown, start: bigint, end: bigint): unknown[] {
  const items = listItems(list);
  if (start < 0n || end < 0n) throw celError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) {
    throw celError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  }
  if (BigInt(items.length) < end) throw celError(`cannot slice(${start}, ${end}), list is length ${items.length}`);
  return items.slice(Number(start), Number(end));
}

function flatten(list: unknown, depth: bigint): unknown[] {
  if (depth < 0n) throw celError('level must be non-negative');
  const out: unknown[] = [];
  for (const v of listItems(list)) {
    // Element by element, not push(...): a review's list may be longer than a call takes arguments.
    if (isList(v) && depth > 0n) for (const x of flatten(v, depth - 1n)) out.push(x);
    else out.push(v);
    checkBuiltSize(out.length, 'the result of flatten');
  }
  return out;
}

function distinct(list: unknown): unknown[] {
  const out: unknown[] = [];
  const seenStrings = new Set<string>();
  for (const v of listItems(list)) {
    if (typeof v === 'string') {
      if (seenStrings.has(v)) continue;
      seenStrings.add(v);
      out.push(v);
      continue;
    }
    // cel-go's distinctList asks the new element: val.Equal(other).
    if (!out.some((o) => celEquals(v, o))) out.push(v);
  }
  return out;
}

function range(n: bigint): bigint[] {
  if (n > BigInt(MAX_RANGE)) {
    throw celError(`lists.range(${n}): a list of more than ${MAX_RANGE} elements exceeds the cost limit`);
  }
  const out: bigint[] = [];
  for (let i = 0n; i < n; i++) out.push(i);
  return out;
}

/**
 * Sorts `list` by the associated `keys` (cel-go's @sortByAssociatedKeys) with Go's sort.Slice, as cel-go
 * does: not stable, so elements whose keys tie, and keys that do not order (NaN), end where Go puts them.
 */
function sortByKeys(list: readonly unknown[], keys: readonly unknown[]): unknown[] {
  if (list.length !== keys.length) {
    throw celError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  }
  if (list.length === 0) return [];
  if (!isComparable(keys[0])) throw celError('list elements must be comparable');
  const type = celTypeName(keys[0]);
  for (const k of keys) if (celTypeName(k) !== type) throw celError('list elements must have the same type');
  const order = keys.map((_, i) => i);
  goSortSlice(
    order.length,
    (i, j) => compareValues(keys[order[i]], keys[order[j]]) === -1,
    (i, j) => {
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
    },
  );
  return order.map((i) => list[i]);
}

function first(list: unknown): CelOptional {
  const items = listItems(list);
  return items.length ? CelOptional.of(items[0]) : CelOptional.none();
}

function last(list: unknown): CelOptional {
  const items = listItems(list);
  return items.length ? CelOptional.of(items[items.length - 1]) : CelOptional.none();
}

/** cel-go's cost of a call that allocates a list: size·factor + call + list creation. */
function allocatingListCost(factor: number, size: number): number {
  return Math.floor(size * factor) + 1 + LIST_CREATE_BASE_COST;
}

function selfCompareCost(list: unknown): number {
  const items = isList(list) ? listItems(list) : [];
  const factor = typeof items[0] === 'string' || items[0] instanceof Uint8Array ? 2 + STRING_TRAVERSAL_COST_FACTOR : 2;
  return allocatingListCost(factor, items.length * items.length);
}

export const listsLibrary: CelLibrary = {
  name: 'cel.lib.ext.lists',
  register(r: LibraryRegistrar) {
    r.registerFunction('list<T>.slice(int, int): list<T>', slice);
    r.registerFunction('list<list<T>>.flatten(): list<T>', (l: unknown) => flatten(l, 1n));
    r.registerFunction('list<dyn>.flatten(int): list<dyn>', flatten);
    r.registerFunction('list<T>.distinct(): list<T>', distinct);
    r.registerFunction('list<T>.reverse(): list<T>', (l: unknown) => [...listItems(l)].reverse());
    for (const t of COMPARABLE_TYPES) {
      r.registerFunction(`list<${t}>.sort(): list<${t}>`, (l: unknown) => sortByKeys(listItems(l), listItems(l)));
      r.registerFunction(`list<T>.${SORT_BY_KEYS}(list<${t}>): list<T>`, (l: unknown, keys: unknown) =>
        sortByKeys(listItems(l), listItems(keys)),
      );
    }
    r.registerFunction('list<T>.first(): optional<T>', first);
    r.registerFunction('list<T>.last(): optional<T>', last);
    r.registerFunction('lists.range(int): list<int>', range);
  },
  callCost(name, args, result) {
    const compared = pairwiseCompareCost(name, args);
    if (compared !== undefined) return compared;
    switch (name) {
      case 'slice':
      case 'reverse':
      case 'lists.range':
        // cel-go's trackListOutputSize also prices a failed call (null here), by its error result (size 1).
        if (result === null) return allocatingListCost(1, 1);
        return isList(result) ? allocatingListCost(1, actualSize(result)) : undefined;
      case 'flatten':
        return allocatingListCost(args.length === 2 ? Number(args[1]) : 1, actualSize(args[0]));
    }
    return undefined;
  },
  // distinct and sort compare every pair: their cost is their list's, whatever they return; lists.range
  // costs the list it builds, whose size is its argument.
  callCostFromArgs: (name, args) => (name === 'lists.range' ? rangeCost(args[0]) : pairwiseCompareCost(name, args)),
};

/** lists.range(n)'s cost, that of the n-element list it returns (none for n <= 0). */
function rangeCost(n: unknown): number | undefined {
  return typeof n === 'bigint' ? allocatingListCost(1, n > 0n ? Number(n) : 0) : undefined;
}

/** The cost of distinct, sort and sortBy (cel-go tracks sortBy by its key list); undefined for the others. */
function pairwiseCompareCost(name: string, args: readonly unknown[]): number | undefined {
  switch (name) {
    case 'distinct':
    case 'sort':
      return selfCompareCost(args[0]);
    case SORT_BY_KEYS:
      return args.length === 2 ? selfCompareCost(args[1]) : undefined;
  }
  return undefined;
}
