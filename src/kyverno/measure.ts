/**
 * The size of a value as JSON text, estimated by a walk that stops at the review's size bound. A
 * JMESPath result may share subtrees (`[@, @]` nested n times is n small arrays in memory but 2^n
 * leaves as text): every later step — a patch, a merge, the review's reply — would expand it, so the
 * engine measures values where they enter the review (variables, context entries, foreach lists, API
 * responses) and what a rule built, and refuses those over the bound. Shared subtrees are measured
 * once (./jmespath/size.ts), and the walk never goes further than the bound.
 */
import type { ReviewGuard } from '../guard/index.js';
import type { JsonValue } from '../json/index.js';
import { jsonSize } from './jmespath/size.js';

/** Estimated JSON length of `value`; throws ReviewAborted('size') over the guard's bound. */
export function measureValue(value: JsonValue, guard: ReviewGuard, what: string): number {
  if (typeof value !== 'object' || value === null) return jsonSize(value, EMPTY, 0);
  const size = jsonSize(value, new WeakMap(), guard.maxValueBytes, guard);
  guard.checkSize(size, what);
  return size;
}

/** Scalars never touch the memo. */
const EMPTY = new WeakMap<object, number>();
