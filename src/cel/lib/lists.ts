import { Optional, type Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from '../library.js';
import { actualSize, LIST_CREATE_BASE_COST, publicName, STRING_TRAVERSAL_COST_FACTOR } from './cost.js';
import { celError } from './errors.js';
import { callArgs, fn, namespace } from './register.js';
import { celEquals, celTypeName, compareValues, isComparable, isList, listItems } from './values.js';

/**
 * cel-go's lists extension (`ext.Lists`, version 3 and `first`/`last`).
 *
 *   <list>.slice(int, int), <list>.flatten([int]), <list>.distinct(), <list>.reverse(),
 *   <list>.sort(), <list>.sortBy(var, keyExpr), <list>.first(), <list>.last() -> optional,
 *   lists.range(int)
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
 * lists.range(n) for n above this fails at once: its result alone costs n, more than the
 * per-expression cost limit (1,000,000), so kube-apiserver would reject it too, after allocating.
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
    if (isList(v) && depth > 0n) out.push(...flatten(v, depth - 1n));
    else out.push(v);
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
    if (!out.some((o) => celEquals(o, v))) out.push(v);
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

/** Sorts `list` by the associated `keys` (cel-go's @sortByAssociatedKeys); stable. */
export function sortByKeys(list: readonly unknown[], keys: readonly unknown[]): unknown[] {
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
  order.sort((a, b) => compareValues(keys[a], keys[b]) || a - b);
  return order.map((i) => list[i]);
}

function first(list: unknown): Optional<unknown> {
  const items = listItems(list);
  return items.length ? Optional.of(items[0]) : Optional.none();
}

function last(list: unknown): Optional<unknown> {
  const items = listItems(list);
  return items.length ? Optional.of(items[items.length - 1]) : Optional.none();
}

/** Minimal views of the cel-js objects a macro's hooks receive. */
interface TypeDecl {
  kind: string;
  name: string;
  valueType?: TypeDecl;
}
interface Scope {
  forkWithVariable(name: string, type: TypeDecl): Scope & { setIterValue(v: unknown, ev: unknown): Scope };
}
interface Checker {
  check(node: unknown, ctx: Scope): TypeDecl;
  createError(code: string, message: string, node: unknown): Error;
  dynType: TypeDecl;
}
interface Evaluator {
  run(node: unknown, ctx: Scope): unknown;
  createError(code: string, message: string, node: unknown): Error;
}
interface SortByMacro {
  ast: unknown;
  receiver: unknown;
  varName: string;
  keyExpr: unknown;
  elemType?: TypeDecl;
  typeCheck(checker: Checker, macro: SortByMacro, ctx: Scope): TypeDecl;
  evaluate(ev: Evaluator, macro: SortByMacro, ctx: Scope): unknown;
}

const SORTABLE_KEY_TYPES = new Set<string>([...COMPARABLE_TYPES, 'dyn']);

function sortByTypeCheck(checker: Checker, macro: SortByMacro, ctx: Scope): TypeDecl {
  const listType = checker.check(macro.receiver, ctx);
  if (listType.kind !== 'list' && listType.kind !== 'dyn') {
    throw checker.createError(
      'no_matching_overload',
      `found no matching overload for 'sortBy' applied to '${listType.name}'`,
      macro.ast,
    );
  }
  macro.elemType = listType.kind === 'list' && listType.valueType ? listType.valueType : checker.dynType;
  const keyType = checker.check(macro.keyExpr, ctx.forkWithVariable(macro.varName, macro.elemType));
  const keyName = keyType.kind === 'dyn' ? 'dyn' : keyType.name;
  if (!SORTABLE_KEY_TYPES.has(keyName)) {
    throw checker.createError(
      'no_matching_overload',
      `found no matching overload for '@sortByAssociatedKeys' applied to '${listType.name}.(list<${keyType.name}>)'`,
      macro.keyExpr,
    );
  }
  return listType;
}

function sortByEvaluate(ev: Evaluator, macro: SortByMacro, ctx: Scope): unknown {
  const finish = (listValue: unknown): unknown => {
    const items = listItems(listValue);
    const keys: unknown[] = [];
    let pending: Promise<void> | undefined;
    for (let i = 0; i < items.length; i++) {
      const scope = ctx.forkWithVariable(macro.varName, macro.elemType!).setIterValue(items[i], ev);
      const key = ev.run(macro.keyExpr, scope);
      if (key instanceof Promise) {
        pending = (pending ?? Promise.resolve()).then(() => key.then((k) => void (keys[i] = k)));
      } else keys[i] = key;
    }
    if (pending) return pending.then(() => sortByKeys(items, keys));
    return sortByKeys(items, keys);
  };
  const listValue = ev.run(macro.receiver, ctx);
  return listValue instanceof Promise ? listValue.then(finish) : finish(listValue);
}

function sortByMacro({ ast, args, receiver }: { ast: unknown; args: unknown[]; receiver: unknown }): SortByMacro {
  const iter = args[0] as { op?: string; args?: unknown };
  if (iter?.op !== 'id' || typeof iter.args !== 'string') {
    throw new Error('sortBy(var, keyExpr): the first argument must be an identifier');
  }
  return {
    ast,
    receiver,
    varName: iter.args,
    keyExpr: args[1],
    typeCheck: sortByTypeCheck,
    evaluate: sortByEvaluate,
  };
}

const NS = 'cel.lib.ext.lists.Namespace';

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
  register(env: Environment) {
    fn(env, 'list<T>.slice(int, int): list<T>', slice);
    fn(env, 'list<list<T>>.flatten(): list<T>', (l: unknown) => flatten(l, 1n));
    fn(env, 'list<dyn>.flatten(int): list<dyn>', flatten);
    fn(env, 'list<T>.distinct(): list<T>', distinct);
    fn(env, 'list<T>.reverse(): list<T>', (l: unknown) => [...listItems(l)].reverse());
    for (const t of COMPARABLE_TYPES) {
      fn(env, `list<${t}>.sort(): list<${t}>`, (l: unknown) => sortByKeys(listItems(l), listItems(l)));
    }
    env.registerFunction('list.sortBy(ast, ast): dyn', sortByMacro as never);
    fn(env, 'list<T>.first(): optional<T>', first);
    fn(env, 'list<T>.last(): optional<T>', last);
    namespace(env, 'lists', NS);
    fn(env, `${NS}.range(int): list<int>`, (_: unknown, n: bigint) => range(n));
  },
  callCost(name, rawArgs, result) {
    const args = callArgs(rawArgs);
    switch (publicName(name)) {
      case 'slice':
      case 'reverse':
        return isList(result) ? allocatingListCost(1, actualSize(result)) : undefined;
      case 'range':
      case 'lists.range':
        return args === rawArgs && name === 'range' ? undefined : allocatingListCost(1, actualSize(result));
      case 'flatten':
        return allocatingListCost(args.length === 2 ? Number(args[1]) : 1, actualSize(args[0]));
      case 'distinct':
      case 'sort':
        return selfCompareCost(args[0]);
      case 'sortBy':
        return args.length === 2 ? selfCompareCost(args[1]) : undefined;
    }
    return undefined;
  },
};
