import { CelUint, Duration, INT64_MAX } from '../engine/values.js';
import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { traversalCost } from './cost.js';
import { celError, intOverflow, noSuchOverload, uintOverflow, type CelEvalError } from './errors.js';
import { COMPARABLE_TYPES } from './lists.js';
import { celEquals, checkInt, compareValues, isComparable, isList, listItems, UINT64_MAX } from './values.js';

/**
 * Kubernetes' list library (`k8s.io/apiserver/pkg/cel/library/lists.go`, and `includes` from 1.37).
 *
 *   <list<T>>.isSorted() -> bool, <list<T>>.min() -> T, <list<T>>.max() -> T   (T comparable)
 *   <list<T>>.sum() -> T                                  (T int, uint, double or duration)
 *   <list<T>>.indexOf(T) -> int, <list<T>>.lastIndexOf(T) -> int
 *   <dyn>.includes(dyn) -> bool     (a list holds an equal element; any other receiver equals the argument)
 */

/**
 * cel-go's `Compare` as Kubernetes' isSorted/min/max read it: they act only on a -1 or 1 and skip the
 * error cel-go returns for two values it cannot order together (`1` and `'a'`, a NaN), so a
 * `dyn` list `[1, 'a', 3]` has the max 3 and is sorted. Undefined for those pairs.
 */
function order(a: unknown, b: unknown): number | undefined {
  try {
    return compareValues(a, b);
  } catch {
    return undefined;
  }
}

/**
 * cel-go picks the overload of a `dyn` list by its first element (types.go IsAssignableRuntimeType), so
 * a first element of no overload's type fails the dispatch: `no such overload: <fn>(list)`
 * (decls.go MaybeNoSuchOverload).
 */
function dispatchFailure(fn: string): CelEvalError {
  return celError(`no such overload: ${fn}(list)`);
}

/**
 * An element that cannot be ordered at all (not a cel-go traits.Comparer) has no overload: the first
 * fails the dispatch, a later one the function itself (lists.go: MaybeNoSuchOverloadErr).
 */
function comparable(v: unknown, i: number, fn: string): void {
  if (!isComparable(v)) throw i === 0 ? dispatchFailure(fn) : noSuchOverload();
}

/** Element by element, as Kubernetes reads the list: the first descending pair answers false. */
function isSorted(list: unknown): boolean {
  const items = listItems(list);
  for (let i = 0; i < items.length; i++) {
    comparable(items[i], i, 'isSorted');
    if (i > 0 && order(items[i - 1], items[i]) === 1) return false;
  }
  return true;
}

function extreme(list: unknown, op: 'min' | 'max'): unknown {
  const items = listItems(list);
  items.forEach((v, i) => comparable(v, i, op));
  if (items.length === 0) throw celError(`${op} called on empty list`);
  const prefer = op === 'min' ? 1 : -1;
  let best = items[0];
  for (let i = 1; i < items.length; i++) if (order(best, items[i]) === prefer) best = items[i];
  return best;
}

type Summable = 'int' | 'uint' | 'double' | 'duration';

function kindOf(v: unknown): Summable {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (v instanceof CelUint) return 'uint';
  if (v instanceof Duration) return 'duration';
  throw dispatchFailure('sum');
}

/**
 * Sums a list of ints, uints, doubles or durations. The element type is taken from the elements
 * (an engine dispatching `dyn` lists may pick any of the four overloads); `empty` is the static
 * overload's zero, returned for an empty list.
 */
function sum(list: unknown, empty: Summable): unknown {
  const items = listItems(list);
  const kind = items.length ? kindOf(items[0]) : empty;
  switch (kind) {
    case 'int': {
      let acc = 0n;
      for (const v of items) {
        if (typeof v !== 'bigint') throw noSuchOverload();
        acc = checkInt(acc + v);
      }
      return acc;
    }
    case 'uint': {
      let acc = 0n;
      for (const v of items) {
        if (!(v instanceof CelUint)) throw noSuchOverload();
        acc += v.value;
        if (acc > UINT64_MAX) throw uintOverflow();
      }
      return new CelUint(acc);
    }
    case 'double': {
      let acc = 0;
      for (const v of items) {
        if (typeof v !== 'number') throw noSuchOverload();
        acc += v;
      }
      return acc;
    }
    case 'duration': {
      let nanos = 0n;
      for (const v of items) {
        if (!(v instanceof Duration)) throw noSuchOverload();
        nanos += v.ns;
        if (nanos > INT64_MAX || nanos < -INT64_MAX) throw intOverflow();
      }
      return new Duration(nanos);
    }
  }
}

function indexOf(list: unknown, item: unknown): bigint {
  const items = listItems(list);
  for (let i = 0; i < items.length; i++) if (celEquals(items[i], item)) return BigInt(i);
  return -1n;
}

/** Kubernetes declares `includes` on dyn: `'a'.includes('a')` and `[1].includes('x')` compile. */
function includes(target: unknown, item: unknown): boolean {
  return isList(target) ? target.some((x) => celEquals(x, item)) : celEquals(target, item);
}

function lastIndexOf(list: unknown, item: unknown): bigint {
  const items = listItems(list);
  for (let i = items.length - 1; i >= 0; i--) if (celEquals(items[i], item)) return BigInt(i);
  return -1n;
}

export const k8sListsLibrary: CelLibrary = {
  name: 'kubernetes.lists',
  register(r: LibraryRegistrar) {
    for (const t of COMPARABLE_TYPES) {
      r.registerFunction(`list<${t}>.isSorted(): bool`, isSorted);
      r.registerFunction(`list<${t}>.min(): ${t}`, (l: unknown) => extreme(l, 'min'));
      r.registerFunction(`list<${t}>.max(): ${t}`, (l: unknown) => extreme(l, 'max'));
    }
    r.registerFunction('list<int>.sum(): int', (l: unknown) => sum(l, 'int'));
    r.registerFunction('list<uint>.sum(): uint', (l: unknown) => sum(l, 'uint'));
    r.registerFunction('list<double>.sum(): double', (l: unknown) => sum(l, 'double'));
    r.registerFunction('list<google.protobuf.Duration>.sum(): google.protobuf.Duration', (l: unknown) => sum(l, 'duration'));
    r.registerFunction('list<A>.indexOf(A): int', indexOf);
    r.registerFunction('list<A>.lastIndexOf(A): int', lastIndexOf);
    r.registerFunction('dyn.includes(dyn): bool', includes);
  },
  callCost(name, args) {
    switch (name) {
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
      case 'includes':
        // O(n) operations: roughly one traversal of the receiver.
        return args.length > 0 ? traversalCost(args[0]) : 0;
    }
    return undefined;
  },
};
