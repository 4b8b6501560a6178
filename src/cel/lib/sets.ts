import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { actualSize } from './cost.js';
import { celEquals, listItems } from './values.js';

/**
 * cel-go's sets extension (`ext.Sets`): list membership tests with CEL equality, so `1`, `1u`
 * and `1.0` are the same element.
 *
 *   sets.contains(list, sublist), sets.equivalent(a, b), sets.intersects(a, b) -> bool
 */

// The element looked for is the receiver of Equal (cel-go's baseList.Contains: elem.Equal(val)), which
// matters where Equal is not symmetric: a Kubernetes quantity() value refuses an add() result.
function contains(list: unknown, sublist: unknown): boolean {
  const items = listItems(list);
  return listItems(sublist).every((x) => items.some((y) => celEquals(x, y)));
}

function intersects(a: unknown, b: unknown): boolean {
  const other = listItems(b);
  return listItems(a).some((x) => other.some((y) => celEquals(x, y)));
}

export const setsLibrary: CelLibrary = {
  name: 'cel.lib.ext.sets',
  register(r: LibraryRegistrar) {
    r.registerFunction('sets.contains(list<T>, list<T>): bool', contains);
    r.registerFunction('sets.equivalent(list<T>, list<T>): bool', (a: unknown, b: unknown) => contains(a, b) && contains(b, a));
    r.registerFunction('sets.intersects(list<T>, list<T>): bool', intersects);
  },
  callCost: setsCost,
  // The cost does not depend on the result: a call over the limit is not made.
  callCostFromArgs: setsCost,
};

/** cel-go's set operation tracker: the cost of a call from its arguments (its result does not count). */
function setsCost(name: string, args: readonly unknown[]): number | undefined {
  switch (name) {
    case 'sets.contains':
    case 'sets.intersects':
      // cel-go's set operation tracker: the call, and one comparison per pair of elements.
      return args.length === 2 ? 1 + actualSize(args[0]) * actualSize(args[1]) : undefined;
    case 'sets.equivalent':
      // Equivalence may compare every pair twice (each list contained in the other).
      return args.length === 2 ? 1 + 2 * actualSize(args[0]) * actualSize(args[1]) : undefined;
  }
  return undefined;
}
