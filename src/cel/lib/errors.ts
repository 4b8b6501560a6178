import { CelEvalError } from '../engine/errors.js';

export { CelEvalError };

/**
 * A CEL runtime error raised by a library function: the engine reports its message as it is, the
 * bare cel-go / Kubernetes text (`cidr("x")` fails with Kubernetes' parse error, not a wrapped one).
 * Anything else a function throws is a bug and is reported prefixed with the function's name.
 */
export function celError(message: string): CelEvalError {
  return new CelEvalError(message);
}

/** cel-go's text for an argument whose runtime type no overload accepts. */
export function noSuchOverload(): CelEvalError {
  return celError('no such overload');
}

/** cel-go's text for an int64 result out of range. */
export function intOverflow(): CelEvalError {
  return celError('integer overflow');
}

/** cel-go's text for a uint64 result out of range. */
export function uintOverflow(): CelEvalError {
  return celError('unsigned integer overflow');
}

/**
 * True when `parse` succeeds, false when it throws one of `expected` (a parse failure); anything
 * else is a bug and propagates. The `isX(string)` predicates are built on it.
 */
export function parses(parse: () => unknown, ...expected: (abstract new (...args: never[]) => unknown)[]): boolean {
  try {
    parse();
    return true;
  } catch (e) {
    if (expected.some((cls) => e instanceof cls)) return false;
    throw e;
  }
}
