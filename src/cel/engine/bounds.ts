/**
 * The review guard (src/guard) as CEL evaluation sees it. Evaluation is synchronous, so the guard of the
 * evaluation in progress is kept here for its duration: library functions that build strings, lists or
 * bytes check their result size against it without a parameter on every call, and nested evaluations
 * (lazily evaluated variables) inherit it.
 */
import type { ReviewGuard } from '../../guard/index.js';

let active: ReviewGuard | undefined;
/** The active guard's bound, kept apart so the check on the normal path is one comparison. */
let bound = Infinity;

/** The guard of the evaluation in progress, if any. */
export function activeGuard(): ReviewGuard | undefined {
  return active;
}

/**
 * Makes `guard` the active one; returns the one it replaces, to be given back to `restoreGuard` in a
 * `finally` (evaluations nest: a lazily evaluated variable runs inside an expression).
 */
export function enterGuard(guard: ReviewGuard): ReviewGuard | undefined {
  const previous = active;
  active = guard;
  bound = guard.maxValueBytes;
  return previous;
}

export function restoreGuard(previous: ReviewGuard | undefined): void {
  active = previous;
  bound = previous ? previous.maxValueBytes : Infinity;
}

/**
 * Throws ReviewAborted('size') when a value of `size` (string length, byte count, or element count) is
 * over the active guard's bound. Called before the value is built.
 */
export function checkBuiltSize(size: number, what: string): void {
  if (size > bound) active!.checkSize(size, what);
}

/** Whether a value of `size` is within the active guard's bound (what checkBuiltSize lets through). */
export function withinBound(size: number): boolean {
  return size <= bound;
}

/** Checks the size (UTF-16 length, bytes, elements) of the value function `fn` returned. */
export function checkResultSize(value: unknown, fn: string): void {
  if (bound === Infinity || value === null || typeof value !== 'object' && typeof value !== 'string') return;
  const size = typeof value === 'string' ? value.length : Array.isArray(value) || value instanceof Uint8Array ? value.length : 0;
  if (size > bound) active!.checkSize(size, `the result of ${fn}`);
}
