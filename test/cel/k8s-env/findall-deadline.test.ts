/**
 * findAll may find a match per character of its input, and with an empty pattern its cost is 0
 * (Kubernetes charges the input's traversal times the pattern's length): one call over a long string ran
 * for seconds without the review's deadline being looked at. It now ticks the guard per match.
 */
import { describe, expect, it } from 'vitest';
import { Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression } from '../../../src/cel/index.js';
import { ReviewAborted, ReviewGuard } from '../../../src/guard/index.js';

function evaluateWithClock(expr: string, s: string) {
  // A clock that advances 1 ms per reading: the deadline is the number of clock reads allowed.
  let t = 0;
  const guard = new ReviewGuard({ deadlineMs: 20, maxValueBytes: 1 << 30, now: () => t++ });
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) throw new Error(c.message);
  return new Evaluation({ object: { s } }, { budget: RUNTIME_CEL_COST_BUDGET, guard }).evaluate(c.compiled);
}

describe('findAll and the review deadline', () => {
  it('stops a call with many matches at the deadline', () => {
    expect(() => evaluateWithClock("object.s.findAll('').size()", 'a'.repeat(100_000))).toThrow(ReviewAborted);
    expect(() => evaluateWithClock("object.s.findAll('a').size()", 'a'.repeat(100_000))).toThrow(ReviewAborted);
  });

  it('leaves a short call alone', () => {
    const r = evaluateWithClock("object.s.findAll('a').size()", 'a'.repeat(100));
    expect(r).toMatchObject({ ok: true, value: 100n });
  });
});
