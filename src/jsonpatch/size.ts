/**
 * A bound on the serialized size of a JSON value, for the review guard's size limit (src/guard): values
 * built during a review share subtrees by reference, so a small heap can stand for a document whose JSON
 * text would be gigabytes. The walk counts each reference as written out, stops as soon as the count
 * passes `limit`, and ticks the guard per node so a large walk also notices the deadline.
 */
import { ReviewAborted, type ReviewGuard } from '../guard/index.js';
import { DEFAULT_MAX_DEPTH, nestsDeeperThan, type JsonValue } from '../json/index.js';
import { parsePointer } from './pointer.js';

/**
 * The length of `value` as compact JSON text, near enough (strings counted without escapes, numbers as
 * 8): exact up to `limit`, and some number above `limit` once it passes it.
 *
 * A value nested deeper than a review may be (DEFAULT_MAX_DEPTH) is refused with ReviewAborted('size'):
 * the received documents are bounded by the parser, but a review can build deeper ones (a JSON patch of
 * n moves each nesting the object once more), which every later recursive step (this walk, the reply's
 * JSON.stringify) would overflow the stack on.
 */
export function jsonSizeUpTo(value: JsonValue, limit: number, guard?: ReviewGuard): number {
  return sizeOf(value, 0, limit, guard, 0);
}

/** `size` plus the size of `v`, returning early once over `limit`; `depth`: the containers around `v`. */
function sizeOf(v: JsonValue, size: number, limit: number, guard: ReviewGuard | undefined, depth: number): number {
  if (typeof v === 'string') return size + v.length + 2;
  if (v === null || typeof v !== 'object') return size + 8;
  guard?.tick();
  if (++depth > DEFAULT_MAX_DEPTH) throw new ReviewAborted('size', `a value nested deeper than ${DEFAULT_MAX_DEPTH} levels was built`);
  if (Array.isArray(v)) {
    size += 1 + v.length;
    for (let i = 0; i < v.length && size <= limit; i++) size = sizeOf(v[i], size, limit, guard, depth);
    return size;
  }
  size += 2;
  for (const k in v) {
    size = sizeOf(v[k], size + k.length + 4, limit, guard, depth);
    if (size > limit) return size;
  }
  return size;
}

/** Throws ReviewAborted('size') when `value` written as JSON would pass the guard's bound. */
export function checkJsonSize(value: JsonValue, guard: ReviewGuard, what: string): void {
  const size = jsonSizeUpTo(value, guard.maxValueBytes, guard);
  if (size > guard.maxValueBytes) guard.checkSize(size, what);
}

/**
 * Throws ReviewAborted('size') when `value` nests deeper than a review may (DEFAULT_MAX_DEPTH, what the
 * parser accepts of a review): the next step's walkers would recurse that deep. `before`: the version it
 * was made from, known to fit, whose subtrees at the same paths are not walked again (nestsDeeperThan).
 */
export function checkJsonDepth(value: JsonValue | null, what: string, before?: JsonValue | null): void {
  if (nestsDeeperThan(value, before, DEFAULT_MAX_DEPTH)) {
    throw new ReviewAborted('size', `${what} nests deeper than ${DEFAULT_MAX_DEPTH} levels`);
  }
}

/** The value `pointer` names in `doc` (plain RFC 6901 walk), or undefined. For sizing `copy` sources. */
export function valueAtPointer(doc: JsonValue, pointer: string): JsonValue | undefined {
  const parsed = parsePointer(pointer);
  if (!parsed.ok) return undefined;
  let v: JsonValue | undefined = doc;
  for (const t of parsed.tokens) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Array.isArray(v) ? v[Number(t)] : Object.prototype.hasOwnProperty.call(v, t) ? v[t] : undefined;
  }
  return v;
}
