/**
 * JMESPath for Kyverno: the original JMESPath grammar and functions with go-jmespath semantics,
 * Kyverno's fork behaviour for unresolved keys, and Kyverno's custom functions (spec kyverno.md §13).
 *
 * API
 * ---
 *   compile(expression): CompiledExpression
 *       Parses once; results are cached (two generations, at most `COMPILE_CACHE_SIZE` entries,
 *       syntax errors included).
 *       Throws JmesPathSyntaxError for an invalid expression (message starts with "SyntaxError:";
 *       a JSON literal that does not decode fails with encoding/json's message alone, as in go-jmespath).
 *   CompiledExpression.functions / .unknownFunctions: names called / called but not registered
 *       (for policy validation; an unknown function only fails when its call is evaluated).
 *   CompiledExpression.search(data, options?): JsonValue
 *       Evaluates against a JSON document. Throws a JmesPathError, or the guard's ReviewAborted.
 *   search(expression, data, options?): JsonValue          compile + search
 *   evaluate(expression, data, options?): EvaluationResult { ok: true, value } | { ok: false, error }
 *       Never throws, except the guard's ReviewAborted when `options.guard` trips; the error is a
 *       JmesPathError.
 *   isUnresolvedError(error): boolean
 *       True when the failure is Kyverno's unresolved variable: `Unknown key "x" in path`.
 *   goJsonStringify(value): string
 *       JSON text as Go's encoding/json writes it (sorted keys, HTML escapes); this is what Kyverno
 *       inserts for a non-string value inside a longer string, and what `to_string` returns.
 *   listFunctions(): FunctionInfo[]        every registered function with signature and note.
 *   compileFresh(expression), clearCompileCache(), COMPILE_CACHE_SIZE   for measurements and tests;
 *   an expression longer than CACHED_EXPRESSION_MAX is compiled per use, never kept.
 *
 * EvaluateOptions: `now()` (ms since the epoch, default Date.now) for the time_* functions;
 * `random()` (default crypto.getRandomValues) for `random`; `images` (Kyverno's defaultRegistry and
 * enableDefaultRegistryMutation) for image_normalize; `guard` (src/guard) bounds time and the size of
 * built arrays and strings; `sizes` (the review's size memo) lets measures skip what it measured before.
 * Inject now/random for deterministic tests.
 *
 * Results share structure with the input document and with literals of the expression (as in every
 * JMESPath implementation): treat them as read-only, copy before changing them.
 *
 * Errors (`error.kind`)
 * ---------------------
 *   'syntax'            JmesPathSyntaxError — bad expression or JSON literal (also at compile()).
 *   'unresolved'        UnresolvedKeyError(key) — a missing key in a bare field access. Tolerated
 *                       (becomes null) inside function arguments, comparisons, `||`, the left side of
 *                       `&&`, `!`, pipes, projections, filters and multi-selects; a field on null or
 *                       on a non-object is null, not an error.
 *   'unknown-function'  UnknownFunctionError(name) — raised when the call is evaluated, as in Go.
 *   'invalid-arity'     InvalidArityError — go-jmespath's "incorrect number of args" / "Invalid arity."
 *   'invalid-type'      InvalidTypeError — "Invalid type for: <v>, expected: []jmespath.JpType{...}"
 *   'function'          FunctionError — a function rejected its input; Kyverno's own functions use
 *                       Kyverno's messages ("JMESPath function 'divide': Zero divisor passed", …).
 *   'runtime'           anything else (e.g. "Invalid slice, step cannot be 0").
 *
 * Differences from Kyverno that cannot be avoided are listed in README.md beside this file.
 */
import { isReviewAborted, UNBOUNDED_GUARD, type ReviewGuard } from '../../guard/index.js';
import { internalized, type JsonValue } from '../../json/index.js';
import { JmesPathError, JmesPathRuntimeError, JmesPathSyntaxError } from './errors.js';
import { allFunctions } from './functions/all.js';
import { forEachChild } from './children.js';
import { compileNode, run, type Evaluator } from './interpreter.js';
import { DEFAULT_IMAGE_CONFIG } from '../go/image.js';
import { TOO_DEEP } from './nesting.js';
import { parse, type Node } from './parser.js';
import { FunctionTable, type ArgType, type CallContext } from './registry.js';
import type { SizeMemo } from './size.js';

export {
  JmesPathError,
  JmesPathSyntaxError,
  UnresolvedKeyError,
  UnknownFunctionError,
  InvalidArityError,
  InvalidTypeError,
  FunctionError,
  JmesPathRuntimeError,
  isUnresolvedError,
  type JmesPathErrorKind,
} from './errors.js';
export { goJsonStringify } from '../../go/index.js';
export { jsonSize, type SizeMemo } from './size.js';

export interface EvaluateOptions {
  /** Milliseconds since the Unix epoch; default Date.now. */
  now?: () => number;
  /** Uniform random number in [0, 1); default from crypto.getRandomValues. */
  random?: () => number;
  /** Kyverno's `defaultRegistry` and `enableDefaultRegistryMutation` (defaults: docker.io, true). */
  images?: { defaultRegistry: string; enableDefaultRegistryMutation: boolean };
  /**
   * The review's bounds: evaluation ticks it in every loop and checks the size of the arrays and
   * strings it builds; a trip leaves as the guard's ReviewAborted (not a JmesPathError). Default: none.
   */
  guard?: ReviewGuard;
  /** The review's size memo (CallContext.sizes), for values no one changes afterwards. Default: one per evaluation. */
  sizes?: SizeMemo;
}

export interface CompiledExpression {
  readonly expression: string;
  /** Names of the functions the expression calls, in order of first appearance. */
  readonly functions: readonly string[];
  /** Called functions that are not registered (their calls fail when evaluated, as in Kyverno). */
  readonly unknownFunctions: readonly string[];
  search(data: JsonValue, options?: EvaluateOptions): JsonValue;
}

export type EvaluationResult = { ok: true; value: JsonValue } | { ok: false; error: JmesPathError };

export interface FunctionInfo {
  name: string;
  signature: string;
  note: string;
}

export const COMPILE_CACHE_SIZE = 2048;

const table = new FunctionTable(allFunctions);

function cryptoRandom(): number {
  const buf = new Uint32Array(2);
  crypto.getRandomValues(buf);
  return (buf[0] * 2 ** 21 + (buf[1] >>> 11)) / 2 ** 53;
}

const defaultContext: CallContext = { now: () => Date.now(), random: cryptoRandom, images: DEFAULT_IMAGE_CONFIG, guard: UNBOUNDED_GUARD, sizes: undefined };

function contextFor(options?: EvaluateOptions): CallContext {
  if (!options || (!options.now && !options.random && !options.images && !options.guard && !options.sizes)) return defaultContext;
  return {
    now: options.now ?? defaultContext.now,
    random: options.random ?? defaultContext.random,
    images: options.images ?? DEFAULT_IMAGE_CONFIG,
    guard: options.guard ?? UNBOUNDED_GUARD,
    sizes: options.sizes,
  };
}

/**
 * Anything thrown below that is not ours (a bug, a stack overflow) still leaves as a JmesPathError;
 * a guard's ReviewAborted leaves as itself, so the engine answers it by failure policy.
 */
function asJmesPathError(e: unknown): JmesPathError {
  if (isReviewAborted(e)) throw e;
  if (e instanceof JmesPathError) return e;
  // At run time the data nests as deep as the expression may (parse_json of a deep text, a deep resource).
  if (e instanceof RangeError) return new JmesPathRuntimeError(`the expression or the data it reads nests too deeply: ${e.message}`);
  return new JmesPathRuntimeError(e instanceof Error ? e.message : String(e));
}

class Compiled implements CompiledExpression {
  readonly unknownFunctions: readonly string[];
  constructor(
    readonly expression: string,
    private readonly evaluator: Evaluator,
    readonly functions: readonly string[],
  ) {
    this.unknownFunctions = functions.filter((f) => !table.get(f));
  }
  search(data: JsonValue, options?: EvaluateOptions): JsonValue {
    try {
      return run(this.evaluator, data, contextFor(options)) as JsonValue;
    } catch (e) {
      throw asJmesPathError(e);
    }
  }
}

function collectFunctions(n: Node, names: Set<string>): void {
  if (n.type === 'Function') names.add(n.name);
  forEachChild(n, (child) => collectFunctions(child, names));
}

function calledFunctions(ast: Node): string[] {
  const names = new Set<string>();
  collectFunctions(ast, names);
  return [...names];
}

/**
 * Two-generation cache: hits in the young generation cost one Map lookup; entries found in the old
 * generation are promoted; when the young generation fills up it becomes the old one. Entries unused
 * for a whole generation are dropped, so at most COMPILE_CACHE_SIZE expressions are kept.
 */
type Entry = Compiled | JmesPathSyntaxError;
/** Longest expression the cache keeps. */
export const CACHED_EXPRESSION_MAX = 4096;
let young = new Map<string, Entry>();
let old = new Map<string, Entry>();
const GENERATION = COMPILE_CACHE_SIZE / 2;

function lookup(expression: string): Entry {
  // A long expression is compiled for each use and not kept: policies' expressions are short, while a
  // nested variable builds its outer expression from the request (`"{{ element.name }}"` inside), and
  // the compiled form of an annotation-sized one is some three times its size (2,048 of them kept 1.2 GB).
  if (expression.length > CACHED_EXPRESSION_MAX) return compileUncached(expression);
  let entry = young.get(expression);
  if (entry !== undefined) return entry;
  entry = old.get(expression) ?? compileUncached(expression);
  // Out of stack within the nesting bound: the caller's stack was nearly used up, which says nothing
  // about the expression; kept, the error would answer every later caller.
  if (entry instanceof JmesPathSyntaxError && OUT_OF_STACK.has(entry)) return entry;
  if (young.size >= GENERATION) {
    old = young;
    young = new Map();
  }
  // Internalized: an expression is cut from a policy's text by each of its readers (its validation, its
  // substitution's memo), and a lookup by another cut of the same text would compare the characters.
  young.set(internalized(expression), entry);
  return entry;
}

/** compileUncached's answers when the JavaScript stack ran out: syntax errors never cached. */
const OUT_OF_STACK = new WeakSet<JmesPathSyntaxError>();

function compileUncached(expression: string): Entry {
  try {
    const ast = parse(expression);
    return new Compiled(expression, compileNode(ast, table), calledFunctions(ast));
  } catch (e) {
    if (e instanceof JmesPathSyntaxError) return e;
    if (e instanceof RangeError) {
      const error = new JmesPathSyntaxError(TOO_DEEP, expression, 0);
      OUT_OF_STACK.add(error);
      return error;
    }
    return new JmesPathSyntaxError(e instanceof Error ? e.message : String(e), expression, 0);
  }
}

/** Compiles (or fetches from the cache) an expression. Throws JmesPathSyntaxError. */
export function compile(expression: string): CompiledExpression {
  const entry = lookup(expression);
  if (entry instanceof JmesPathSyntaxError) throw entry;
  return entry;
}

/** Compiles without touching the cache (for measurements and one-off use). */
export function compileFresh(expression: string): CompiledExpression {
  const entry = compileUncached(expression);
  if (entry instanceof JmesPathSyntaxError) throw entry;
  return entry;
}

export function search(expression: string, data: JsonValue, options?: EvaluateOptions): JsonValue {
  return compile(expression).search(data, options);
}

export function evaluate(expression: string, data: JsonValue, options?: EvaluateOptions): EvaluationResult {
  try {
    return { ok: true, value: compile(expression).search(data, options) };
  } catch (e) {
    return { ok: false, error: asJmesPathError(e) };
  }
}

export function clearCompileCache(): void {
  young = new Map();
  old = new Map();
}

function typeList(types: ArgType[]): string {
  return types.join('|');
}

export function listFunctions(): FunctionInfo[] {
  return table.list().map((f) => ({
    name: f.name,
    signature: `${f.name}(${f.args.map((a) => typeList(a.types) + (a.variadic ? '...' : '')).join(', ')}) ${typeList(f.returns)}`,
    note: f.note,
  }));
}
