/**
 * cel-go's run-time error for a call whose arguments no overload takes. The checker's compile-time
 * `found no matching overload for ...` is another text; at run time cel-go words the failure by how the
 * function is bound (cel-go v0.26):
 * - a function with per-overload bindings (most functions, library functions included): the overload's
 *   type guard or the dispatch over its overloads answers `no such overload: f(t1, t2)`, the runtime
 *   type names (common/decls/decls.go MaybeNoSuchOverload);
 * - an operator bound once for all overloads through a trait of its first operand (`_+_`, `_<_`,
 *   `size`, ..., common/stdlib/standard.go Singleton*Binding): an operand with the trait, or a receiver
 *   value (string, timestamp, duration), answers through its own method, plain `no such overload`
 *   (common/types/*.go MaybeNoSuchOverloadErr; String/Timestamp/Duration.Receive); any other operand
 *   gets the interpreter's `no such overload: f` (interpreter/interpretable.go evalUnary/evalBinary);
 * - a function whose type guards are disabled runs its implementation, which answers itself.
 */
import { CelEvalError, noSuchOverload } from './errors.js';
import { typeNameOf } from './runtime.js';

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

// Trait masks of cel-go's runtime types (common/types/types.go), by type name.
const ADDER = new Set(['int', 'uint', 'double', 'string', 'bytes', 'list', TS, DUR]);
const SUBTRACTOR = new Set(['int', 'uint', 'double', TS, DUR]);
const ARITHMETIC = new Set(['int', 'uint', 'double']);
const MODDER = new Set(['int', 'uint']);
const COMPARER = new Set(['int', 'uint', 'double', 'string', 'bytes', 'bool', TS, DUR]);
const NEGATER = new Set(['int', 'double', 'bool', DUR]);
const SIZER = new Set(['string', 'bytes', 'list', 'map']);
const MATCHER = new Set(['string']);
const LISTER = new Set(['list']);
/** Types with traits.ReceiverType: evalUnary/evalBinary hand them the call, and they refuse it. */
const RECEIVER = new Set(['string', TS, DUR]);

/** Functions cel-go binds once, through the trait their first operand must have. */
const TRAIT_BOUND = new Map<string, ReadonlySet<string>>([
  ['_+_', ADDER],
  ['_-_', SUBTRACTOR],
  ['_*_', ARITHMETIC],
  ['_/_', ARITHMETIC],
  ['_%_', MODDER],
  ['_<_', COMPARER],
  ['_<=_', COMPARER],
  ['_>_', COMPARER],
  ['_>=_', COMPARER],
  ['-_', NEGATER],
  ['size', SIZER],
  ['matches', MATCHER],
  // ext/lists.go: sort and its macro's helper are singletons over traits.ListerType.
  ['sort', LISTER],
  ['@sortByAssociatedKeys', LISTER],
]);

/**
 * Functions whose implementation always runs and answers plain `no such overload`: `!_` (a singleton
 * without a trait), `@in` (inAggregate), and the string functions declared with DisableTypeGuards
 * (types.StringContains/StartsWith/EndsWith).
 */
const IMPLEMENTATION_ANSWERS = new Set(['!_', '@in', 'contains', 'startsWith', 'endsWith']);

/** The error cel-go gives for a call of `fn` with `args` that none of its overloads takes. */
export function callFailure(fn: string, args: readonly unknown[]): CelEvalError {
  if (IMPLEMENTATION_ANSWERS.has(fn)) return noSuchOverload();
  const traitHolders = TRAIT_BOUND.get(fn);
  if (traitHolders) {
    const t = typeNameOf(args[0]);
    return traitHolders.has(t) || RECEIVER.has(t) ? noSuchOverload() : new CelEvalError(`no such overload: ${fn}`);
  }
  if (fn === 'flatten') return flattenFailure(args);
  return new CelEvalError(`no such overload: ${fn}(${args.map(typeNameOf).join(', ')})`);
}

/**
 * ext/lists.go flatten (type guards disabled) checks its arguments itself and prints their types with
 * `%v`: a Type's String(), so runtime lists and maps read `list(dyn)` and `map(dyn, dyn)`.
 */
function flattenFailure(args: readonly unknown[]): CelEvalError {
  const [list, ...rest] = args.map(typeString);
  return new CelEvalError(`no such overload: ${list}.flatten(${rest.join(', ')})`);
}

function typeString(v: unknown): string {
  const n = typeNameOf(v);
  return n === 'list' ? 'list(dyn)' : n === 'map' ? 'map(dyn, dyn)' : n;
}
