/**
 * Constant folding at plan time: pure calls on constant arguments evaluated once (foldCall), and type
 * conversions of constants evaluated when the program is created, as cel-go's OptOptimize does
 * (constantConversion). Apart from the planner because it runs planned closures, not AST nodes.
 */
import type { CallExpr, Expr } from './ast.js';
import { withinBound } from './bounds.js';
import { CelEvalError, ProgramInstantiationError } from './errors.js';
import { EvalState, type Activation } from './eval-state.js';
import type { PlanCheck } from './env.js';
import type { Overload } from './functions.js';
import type { Planned } from './planned.js';
import type { CelValue } from './values.js';

/** What a folded call may see while it is evaluated at plan time: no variable at all. */
const NO_ACTIVATION: Activation = { resolve: () => undefined };

/** Folded results are kept only up to this size (a string's length): they live as long as the policy. */
const MAX_FOLDED_SIZE = 4096;

/**
 * A call of one pure overload (a standard function, or a library function declared pure) whose
 * arguments are all constants or folded calls, evaluated once now. Each evaluation then charges the
 * cost the call charged here and returns its value, unless that cost would pass the evaluation's limit
 * (or a guard checkpoint) or a result would pass the review guard's size bound: then the call runs as
 * planned, so that the error, the cost at which it stops and the guard's look at its clock are those
 * of the unfolded call. A call that fails here, or returns anything but a small scalar or string, is
 * left as it is.
 */
export function foldCall(overload: Overload, args: readonly Planned[], call: Planned): Planned {
  if (overload.library !== undefined && !overload.pure) return call;
  if (args.length === 0 || !args.every((a) => a.constant !== undefined || a.folded !== undefined)) return call;
  const s = new EvalState(NO_ACTIVATION, Infinity, 0);
  let value: CelValue;
  try {
    value = call.fn(s);
  } catch {
    return call;
  }
  let size = 0;
  if (typeof value === 'string') size = value.length;
  else if (value !== null && typeof value === 'object') return call;
  for (const a of args) if (a.folded !== undefined && a.folded.size > size) size = a.folded.size;
  if (size > MAX_FOLDED_SIZE) return call;
  const cost = s.cost;
  const planned = call.fn;
  return {
    attribute: false,
    folded: { value, cost, size },
    fn: (st) => {
      if (st.cost + cost > st.limit || !withinBound(size)) return planned(st);
      st.cost += cost;
      return value;
    },
  };
}

/** cel-go's type conversion functions (`overloads.IsTypeConversionFunction`). */
export const TYPE_CONVERSIONS = new Set(['bool', 'bytes', 'double', 'duration', 'dyn', 'int', 'string', 'timestamp', 'type', 'uint']);

/**
 * OptOptimize evaluates a type conversion of a constant (`uint(1)`, `duration('1s')`) when the program
 * is created: it is a constant, free at run time (so is a list or map of such constants), and an error
 * there (`int('abc')`) fails program creation.
 */
export function constantConversion(e: CallExpr, call: Planned): Planned {
  let value: CelValue;
  try {
    value = call.fn(new EvalState(NO_ACTIVATION, Infinity, 0));
  } catch (err) {
    if (err instanceof CelEvalError) throw new ProgramInstantiationError(err.message, e.pos);
    throw err;
  }
  return { attribute: false, constant: { value }, fn: () => value };
}

/**
 * cel-go's RegexOptimization: a library checks a constant argument when the program is created
 * (Kubernetes compiles a constant regex of `matches`, `find`, `findAll` then), and an error fails
 * program creation. Made once the call's arguments are planned, as cel-go decorates a call after
 * planning them, so a constant conversion (`dyn('[')`) counts as a constant.
 */
export function checkConstantArgument(check: PlanCheck | undefined, args: readonly Expr[], plans: readonly Planned[]): void {
  if (!check) return;
  const value = plans[check.index]?.constant?.value;
  if (typeof value !== 'string') return;
  const err = check.check(value);
  if (err !== undefined) throw new ProgramInstantiationError(err, args[check.index].pos);
}
