import { EvaluationError } from '@marcbachmann/cel-js';

/**
 * A CEL runtime error raised by a library function. cel-js attaches the call's source position when
 * the error leaves the handler, so the message stays the bare cel-go / Kubernetes text.
 */
export function celError(message: string): EvaluationError {
  return new EvaluationError(message);
}

/** cel-go's text for an argument whose runtime type no overload accepts. */
export function noSuchOverload(): EvaluationError {
  return celError('no such overload');
}

/** cel-go's text for an int64 result out of range. */
export function intOverflow(): EvaluationError {
  return celError('integer overflow');
}

/** cel-go's text for a uint64 result out of range. */
export function uintOverflow(): EvaluationError {
  return celError('unsigned integer overflow');
}

/**
 * True when `parse` succeeds, false when it throws one of `expected` (a parse failure); anything
 * else is a bug and propagates. The `isX(string)` predicates are built on it.
 */
export function parses(parse: () => unknown, ...expected: (abstract new (...args: never[]) => Error)[]): boolean {
  try {
    parse();
    return true;
  } catch (e) {
    if (expected.some((cls) => e instanceof cls)) return false;
    throw e;
  }
}
