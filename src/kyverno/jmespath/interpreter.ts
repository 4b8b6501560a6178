/**
 * Compiles a parsed expression into nested closures that evaluate it with Kyverno's semantics.
 *
 * Kyverno's go-jmespath fork makes a field access on an object that lacks the key fail with
 * `Unknown key "x" in path` (a field on null or on a non-object is just null). That failure travels up
 * through sub-expressions and index expressions, and is turned back into null by every tolerant
 * context: function arguments, comparisons, `||` (both sides), the left side of `&&`, `!`, pipes,
 * projections, filters and multi-selects. Here it travels as the MISSING sentinel (no exception on
 * the hot path); the key is kept in the evaluation state for the message.
 *
 * Bounds: every loop ticks the review's guard (deadline, cancellation), and the values that can grow
 * past their inputs are measured before they are kept: flattened arrays (`[@, @][]` doubles a list)
 * and function results. Multi-selects share their children, so their growth costs nothing until the
 * value is walked; the walkers (comparison, `to_string`, the engine's own measure) are bounded too.
 */
import { isReviewAborted, type ReviewGuard } from '../../guard/index.js';
import { hasOwn, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { FunctionError, JmesPathRuntimeError, UnknownFunctionError, UnresolvedKeyError } from './errors.js';
import { formatFloatG } from '../../go/index.js';
import type { Comparator, Node } from './parser.js';
import { checkArgs, type CallContext, type FunctionTable } from './registry.js';
import { jsonSize, type SizeMemo } from './size.js';
import { deepEqual, ExpRef, isFalse, toJson, type Value } from './values.js';

export const MISSING: unique symbol = Symbol('missing');
type Result = Value | typeof MISSING;

export interface State {
  missingKey: string;
  ctx: CallContext;
  sawExpRef: boolean;
  guard: ReviewGuard;
  /** Sizes of the arrays and objects measured during this evaluation, or the review's (CallContext.sizes; ./size.ts). */
  sizes: SizeMemo | undefined;
}

export type Evaluator = (value: Value, state: State) => Result;

const tolerate = (r: Result): Value => (r === MISSING ? null : r);

function compareNumbers(op: Comparator, a: number, b: number): boolean {
  switch (op) {
    case 'lt':
      return a < b;
    case 'lte':
      return a <= b;
    case 'gt':
      return a > b;
    default:
      return a >= b;
  }
}

/** go-jmespath slice semantics (Python-like clamping; step 0 is an error). */
export function sliceArray<T>(arr: T[], start: number | null, stop: number | null, step: number | null): T[] {
  const len = arr.length;
  const st = step === null ? 1 : step;
  if (st === 0) throw new JmesPathRuntimeError('Invalid slice, step cannot be 0');
  const cap = (n: number): number => {
    if (n < 0) {
      n += len;
      if (n < 0) n = st < 0 ? -1 : 0;
    } else if (n >= len) {
      n = st < 0 ? len - 1 : len;
    }
    return n;
  };
  const from = start === null ? (st < 0 ? len - 1 : 0) : cap(start);
  const to = stop === null ? (st < 0 ? -1 : len) : cap(stop);
  const out: T[] = [];
  if (st > 0) for (let i = from; i < to; i += st) out.push(arr[i]);
  else for (let i = from; i > to; i += st) out.push(arr[i]);
  return out;
}

// One small builder per node type: each closure captures only what it needs (a single large function
// creating every kind of closure made V8 allocate and compile far more per node).

function field(name: string): Evaluator {
  if (name === '__proto__') {
    return (v, s) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof ExpRef) return null;
      if (hasOwn(v, name)) return v[name];
      s.missingKey = name;
      return MISSING;
    };
  }
  return (v, s) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
    // JSON values are never functions or undefined, so either means the key is not an own data
    // property (e.g. `toString` inherited from Object.prototype): no hasOwnProperty on the hot path.
    const x = (v as Record<string, unknown>)[name];
    if (x !== undefined && typeof x !== 'function') return x as Value;
    if (v instanceof ExpRef) return null;
    s.missingKey = name;
    return MISSING;
  };
}

function literal(value: JsonValue): Evaluator {
  return () => value;
}

const identity: Evaluator = (v) => v;

function subexpression(left: Evaluator, right: Evaluator): Evaluator {
  return (v, s) => {
    const l = left(v, s);
    if (l === MISSING) return MISSING;
    if (l === null) return null;
    return right(l, s);
  };
}

function index(i: number): Evaluator {
  return (v) => {
    if (!Array.isArray(v)) return null;
    const at = i < 0 ? i + v.length : i;
    return at >= 0 && at < v.length ? v[at] : null;
  };
}

function slice(start: number | null, stop: number | null, step: number | null): Evaluator {
  return (v) => (Array.isArray(v) ? sliceArray(v, start, stop, step) : null);
}

function projection(left: Evaluator, right: Evaluator, rightIsIdentity: boolean): Evaluator {
  return (v, s) => {
    const l = tolerate(left(v, s));
    if (!Array.isArray(l)) return null;
    const out: Value[] = [];
    for (const item of l) {
      s.guard.tick();
      const r = rightIsIdentity ? item : tolerate(right(item, s));
      if (r !== null) out.push(r);
    }
    return out as JsonValue;
  };
}

/**
 * go-jmespath swallows every error of the left side of value projections, filters and flattens
 * (not the guard's: the review is over).
 */
function swallow(e: Evaluator, v: Value, s: State): Result {
  try {
    return e(v, s);
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    return null;
  }
}

function valueProjection(left: Evaluator, right: Evaluator): Evaluator {
  return (v, s) => {
    const l = swallow(left, v, s);
    if (typeof l !== 'object' || l === null || Array.isArray(l) || l instanceof ExpRef) return null;
    const out: Value[] = [];
    for (const key in l) {
      if (!hasOwn(l, key)) continue;
      s.guard.tick();
      const r = tolerate(right(l[key], s));
      if (r !== null) out.push(r);
    }
    return out as JsonValue;
  };
}

function filterProjection(left: Evaluator, right: Evaluator, cond: Evaluator): Evaluator {
  return (v, s) => {
    const l = swallow(left, v, s);
    if (!Array.isArray(l)) return null;
    const out: Value[] = [];
    for (const item of l) {
      s.guard.tick();
      if (isFalse(tolerate(cond(item, s)))) continue;
      const r = tolerate(right(item, s));
      if (r !== null) out.push(r);
    }
    return out as JsonValue;
  };
}

function flatten(child: Evaluator): Evaluator {
  return (v, s) => {
    const l = swallow(child, v, s);
    if (!Array.isArray(l)) return null;
    // Measured before it is built: `[@, @][]` doubles a list at every step.
    const limit = s.guard.maxValueBytes;
    const sizes = (s.sizes ??= new WeakMap());
    let size = 2;
    for (const item of l) {
      size += jsonSize(item, sizes, limit, s.guard) - (Array.isArray(item) ? 1 : -1);
      if (size > limit) s.guard.checkSize(size, 'a flattened array');
    }
    const out: JsonValue[] = [];
    for (const item of l) {
      s.guard.tick();
      if (Array.isArray(item)) for (const x of item) out.push(x);
      else out.push(item);
    }
    sizes.set(out, size);
    return out;
  };
}

// Multi-selects of null are null (go-jmespath), so projections drop them.
function multiSelectList(children: Evaluator[]): Evaluator {
  return (v, s) => (v === null ? null : (children.map((ch) => tolerate(ch(v, s))) as JsonValue));
}

function multiSelectHash(entries: { key: string; value: Evaluator }[]): Evaluator {
  return (v, s) => {
    if (v === null) return null;
    const out: Record<string, Value> = {};
    for (const e of entries) {
      setOwn(out as JsonObject, e.key, tolerate(e.value(v, s)) as JsonValue);
    }
    return out as JsonValue;
  };
}

function or(left: Evaluator, right: Evaluator): Evaluator {
  return (v, s) => {
    const l = tolerate(left(v, s));
    return isFalse(l) ? tolerate(right(v, s)) : l;
  };
}

/** Only the left side is tolerant: Kyverno returns the right side's result (and error) as is. */
function and(left: Evaluator, right: Evaluator): Evaluator {
  return (v, s) => {
    const l = tolerate(left(v, s));
    return isFalse(l) ? l : right(v, s);
  };
}

function not(child: Evaluator): Evaluator {
  return (v, s) => isFalse(tolerate(child(v, s)));
}

function comparator(op: Comparator, left: Evaluator, right: Evaluator): Evaluator {
  if (op === 'eq') return (v, s) => deepEqual(tolerate(left(v, s)), tolerate(right(v, s)), s.guard);
  if (op === 'ne') return (v, s) => !deepEqual(tolerate(left(v, s)), tolerate(right(v, s)), s.guard);
  return (v, s) => {
    const l = tolerate(left(v, s));
    const r = tolerate(right(v, s));
    if (typeof l !== 'number' || typeof r !== 'number') return null;
    return compareNumbers(op, l, r);
  };
}

function pipe(left: Evaluator, right: Evaluator): Evaluator {
  return (v, s) => tolerate(right(tolerate(left(v, s)), s));
}

function expref(child: Evaluator): Evaluator {
  return (_v, s) => {
    s.sawExpRef = true;
    return new ExpRef((x) => {
      s.guard.tick(); // map, sort_by, max_by… apply it per element
      // An expression reference it yields (`map(&&a, …)`) stays one, as in Go; the result's JSON copy
      // writes it `{}` (sawExpRef is set by its evaluation).
      return tolerate(child(x, s)) as JsonValue;
    });
  };
}

function call(name: string, args: Evaluator[], functions: FunctionTable): Evaluator {
  const def = functions.get(name);
  if (!def) {
    return (v, s) => {
      for (const a of args) a(v, s); // Go evaluates the arguments before looking the name up
      throw new UnknownFunctionError(name);
    };
  }
  return (v, s) => {
    const values: Value[] = new Array(args.length);
    for (let i = 0; i < args.length; i++) values[i] = tolerate(args[i](v, s));
    checkArgs(def, values);
    s.guard.tick();
    const result = def.call(values, s.ctx);
    // Functions that can grow text or lists check before building; this catches the rest.
    if (typeof result === 'string' || Array.isArray(result)) s.guard.checkSize(result.length, `the result of ${name}()`);
    // Go would carry ±Inf/NaN on and fail when encoding it; no JSON document can hold it, so stop here.
    if (typeof result === 'number' && !Number.isFinite(result)) {
      throw new FunctionError(name, `json: unsupported value: ${formatFloatG(result)}`);
    }
    return result;
  };
}

export function compileNode(node: Node, functions: FunctionTable): Evaluator {
  switch (node.type) {
    case 'Identity':
    case 'Current':
      return identity;
    case 'Literal':
      return literal(node.value);
    case 'Field':
      return field(node.name);
    case 'Subexpression':
    case 'IndexExpression':
      return subexpression(compileNode(node.left, functions), compileNode(node.right, functions));
    case 'Index':
      return index(node.index);
    case 'Slice':
      return slice(node.start, node.stop, node.step);
    case 'Projection':
      return projection(compileNode(node.left, functions), compileNode(node.right, functions), node.right.type === 'Identity');
    case 'ValueProjection':
      return valueProjection(compileNode(node.left, functions), compileNode(node.right, functions));
    case 'FilterProjection':
      return filterProjection(compileNode(node.left, functions), compileNode(node.right, functions), compileNode(node.condition, functions));
    case 'Flatten':
      return flatten(compileNode(node.child, functions));
    case 'MultiSelectList':
      return multiSelectList(node.children.map((n) => compileNode(n, functions)));
    case 'MultiSelectHash':
      return multiSelectHash(node.entries.map((e) => ({ key: e.key, value: compileNode(e.value, functions) })));
    case 'Or':
      return or(compileNode(node.left, functions), compileNode(node.right, functions));
    case 'And':
      return and(compileNode(node.left, functions), compileNode(node.right, functions));
    case 'Not':
      return not(compileNode(node.child, functions));
    case 'Comparator':
      return comparator(node.op, compileNode(node.left, functions), compileNode(node.right, functions));
    case 'Pipe':
      return pipe(compileNode(node.left, functions), compileNode(node.right, functions));
    case 'ExpRef':
      return expref(compileNode(node.child, functions));
    case 'Function':
      return call(node.name, node.args.map((n) => compileNode(n, functions)), functions);
  }
}

/** Runs a compiled evaluator at the top level: an unresolved key becomes UnresolvedKeyError. */
export function run(evaluator: Evaluator, data: JsonValue, ctx: CallContext): Value {
  const state: State = { missingKey: '', ctx, sawExpRef: false, guard: ctx.guard, sizes: ctx.sizes };
  const result = evaluator(data, state);
  if (result === MISSING) throw new UnresolvedKeyError(state.missingKey);
  if (!state.sawExpRef) return result;
  // toJson copies: measure first (shared subtrees once) rather than copy up to the bound.
  const size = jsonSize(result, (state.sizes ??= new WeakMap()), ctx.guard.maxValueBytes, ctx.guard);
  ctx.guard.checkSize(size, 'a JMESPath result');
  return toJson(result, ctx.guard);
}
