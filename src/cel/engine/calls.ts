/**
 * The run-time end of a function call that the planner's call closures share: a standard overload called
 * without an argument array (callStandard), and the cost charged for a call that threw before its error
 * is thrown (failedCall), both in cel-go's cost units.
 */
import { checkResultSize } from './bounds.js';
import { charge, isCostError, toError, type EvalState } from './eval-state.js';
import type { Overload } from './functions.js';
import type { CelValue } from './values.js';

/**
 * A call that threw: cel-go charges a call that returns an error like any other call (`costOf`, or 1 when
 * it says nothing or fails itself), then its error is thrown.
 */
export function failedCall(s: EvalState, err: unknown, name: string, costOf: () => number | undefined): never {
  const error = toError(err, name);
  let cost: number | undefined;
  try {
    cost = costOf();
  } catch {
    cost = undefined;
  }
  charge(s, cost ?? 1);
  throw error;
}

/**
 * A call that did not run because an argument failed, or because no overload takes its arguments: cel-go
 * observes it like any call (CEL errors are values; `evalWatch` observes the error the call returns),
 * charging `costOf()` — the overload's cost with the failed argument as an error value of size 1 — or 1
 * when that says nothing or fails, then `err` is thrown as it is. Cost limits and aborts pass uncharged.
 */
export function failedArgs(s: EvalState, err: unknown, costOf: () => number | undefined): never {
  if (isCostError(err)) throw err;
  let cost: number | undefined;
  try {
    cost = costOf();
  } catch {
    cost = undefined;
  }
  charge(s, cost !== undefined && Number.isFinite(cost) ? cost : 1);
  throw err;
}

/**
 * A call of a standard overload with one or two arguments: the value, cost and error `invoke` gives, with
 * the argument array made only for the overload's cost function or its error.
 */
export function callStandard(s: EvalState, o: Overload, name: string, arity: 1 | 2, v0: CelValue, v1?: CelValue): CelValue {
  let result: CelValue;
  try {
    result = arity === 1 ? o.impl!(v0) : o.impl!(v0, v1);
  } catch (err) {
    failedCall(s, err, name, () => o.cost?.(arity === 1 ? [v0] : [v0, v1!], null));
  }
  charge(s, (o.cost === undefined ? undefined : o.cost(arity === 1 ? [v0] : [v0, v1!], result)) ?? 1);
  checkResultSize(result, name);
  return result;
}
