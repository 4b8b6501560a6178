/**
 * The size of a value as JSON text, estimated by a walk that stops at the review's size bound. A
 * JMESPath result may share subtrees (`[@, @]` nested n times is n small arrays in memory but 2^n
 * leaves as text): every later step — a patch, a merge, the review's reply — would expand it, so the
 * engine measures values where they enter the review (variables, context entries, foreach lists, API
 * responses) and what a rule built, and refuses those over the bound. The walk stops once past the
 * bound, so a value sharing subtrees costs at most about `maxValueBytes / 2` steps; it keeps no memo of
 * shared subtrees (./jmespath/size.ts can): the values measured here are nearly always plain trees, and
 * a memo would make every measure several times slower. Across a review it pays: the resource each rule
 * built shares every subtree it did not change with the one before it, and queries return its subtrees,
 * so the review's memo (JsonContext.sizes) walks each subtree once; the strategic merges fill it too, with
 * the sizes of the subtrees their normalizing walks found (run.ts).
 */
import type { ReviewGuard } from '../guard/index.js';
import type { JsonValue } from '../json/index.js';
import { jsonSize, type SizeMemo } from './jmespath/index.js';

/**
 * Estimated JSON length of `value`; throws ReviewAborted('size') over the guard's bound. `memo` remembers
 * the sizes of the arrays and objects walked: only for values no one changes afterwards.
 */
export function measureValue(value: JsonValue, guard: ReviewGuard, what: string, memo?: SizeMemo): number {
  const size = jsonSize(value, memo, guard.maxValueBytes, guard);
  if (size > guard.maxValueBytes) guard.checkSize(size, what);
  return size;
}
