/**
 * The size of a value as JSON text, estimated by a walk that stops at the review's size bound. A
 * JMESPath result may share subtrees (`[@, @]` nested n times is n small arrays in memory but 2^n
 * leaves as text): every later step — a patch, a merge, the review's reply — would expand it, so the
 * engine measures values where they enter the review (variables, context entries, foreach lists)
 * and refuses those over the bound. The walk visits at most about `maxValueBytes / 2` nodes.
 */
import type { ReviewGuard } from '../guard/index.js';
import type { JsonValue } from '../json/index.js';

/** Estimated JSON length of `value` (strings by UTF-16 length); throws ReviewAborted('size') over the bound. */
export function measureValue(value: JsonValue, guard: ReviewGuard, what: string): number {
  if (typeof value !== 'object' || value === null) return scalarSize(value);
  let size = 0;
  const visit = (v: JsonValue): void => {
    if (typeof v !== 'object' || v === null) {
      size += scalarSize(v) + 1;
    } else if (Array.isArray(v)) {
      size += 2;
      for (const item of v) visit(item);
    } else {
      size += 2;
      for (const key of Object.keys(v)) {
        size += key.length + 3;
        visit(v[key]);
      }
    }
    if (size > guard.maxValueBytes) guard.checkSize(size, what);
    guard.tick();
  };
  visit(value);
  return size;
}

function scalarSize(value: string | number | boolean | null): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number') return 8;
  return value === null ? 4 : 5;
}
