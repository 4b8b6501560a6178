import type { Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from '../library.js';
import { actualSize, publicName } from './cost.js';
import { callArgs, fn, namespace } from './register.js';
import { celEquals, listItems } from './values.js';

/**
 * cel-go's sets extension (`ext.Sets`): list membership tests with CEL equality, so `1`, `1u`
 * and `1.0` are the same element.
 *
 *   sets.contains(list, sublist), sets.equivalent(a, b), sets.intersects(a, b) -> bool
 */

function contains(list: unknown, sublist: unknown): boolean {
  const items = listItems(list);
  return listItems(sublist).every((x) => items.some((y) => celEquals(y, x)));
}

function intersects(a: unknown, b: unknown): boolean {
  const other = listItems(b);
  return listItems(a).some((x) => other.some((y) => celEquals(y, x)));
}

const NS = 'cel.lib.ext.sets.Namespace';

export const setsLibrary: CelLibrary = {
  name: 'cel.lib.ext.sets',
  register(env: Environment) {
    namespace(env, 'sets', NS);
    fn(env, `${NS}.contains(list<T>, list<T>): bool`, (_: unknown, a: unknown, b: unknown) => contains(a, b));
    fn(env, `${NS}.equivalent(list<T>, list<T>): bool`, (_: unknown, a: unknown, b: unknown) =>
      contains(a, b) && contains(b, a),
    );
    fn(env, `${NS}.intersects(list<T>, list<T>): bool`, (_: unknown, a: unknown, b: unknown) => intersects(a, b));
  },
  callCost(name, rawArgs) {
    const args = callArgs(rawArgs);
    // 'contains' is also cel-js's string.contains: answer only for the namespaced call.
    if (args === rawArgs && !name.startsWith('sets.')) return undefined;
    switch (publicName(name).replace(/^sets\./, '')) {
      case 'contains':
      case 'equivalent':
      case 'intersects':
        // cel-go's set operation tracker: one comparison per pair of elements.
        return args.length === 2 ? actualSize(args[0]) * actualSize(args[1]) : undefined;
    }
    return undefined;
  },
};
