/**
 * A comprehension step can cost nothing in Kubernetes' cost model: `filter(x, false)` resolves @result
 * through cel-go's conditional attribute, unobserved, so `list.filter(x, false)` costs a few units
 * whatever the list's length. The review's deadline was looked at only on the cost path (every 20,000
 * units), so such loops nested over a review's list of 1,000,000 zeros (2 MB) ran 113 s past an 8 s
 * deadline. kube-apiserver interrupts a comprehension every 100 iterations (cel.InterruptCheckFrequency in
 * apiserver's admission/plugin/cel/compile.go); here every iteration ticks the review guard, which reads
 * its clock every TICKS_PER_CHECK ticks. Counted, not timed: a guard whose clock advances one unit per
 * read (the deadline passes after so many reads).
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation } from '../../src/cel/index.js';
import { ReviewAborted, ReviewGuard, TICKS_PER_CHECK } from '../../src/guard/index.js';

/** A guard whose clock advances 1 per reading, and how many readings it had. */
function steppingGuard(deadlineReads: number): { guard: ReviewGuard; reads: () => number } {
  let now = 0;
  const guard = new ReviewGuard({ deadlineMs: deadlineReads, maxValueBytes: 6 << 20, now: () => now++ });
  return { guard, reads: () => now };
}

function evaluate(expression: string, object: unknown, guard: ReviewGuard): unknown {
  const r = compileExpression(expression, 'matchCondition', { params: false });
  if (!r.ok) throw new Error(r.message);
  const out = new Evaluation({ object: object as never }, { budget: 10_000_000, guard }).evaluate(r.compiled);
  return out.ok ? { value: out.value, cost: out.cost } : { error: out.message };
}

const ZEROS = { spec: { x: new Array<number>(2_000).fill(0) } };
/** 4,002,000 iterations of which the inner 2,000 per step cost nothing: a total cost far below the cost path's 20,000-unit stride. */
const FREE_INNER = 'object.spec.x.all(c, object.spec.x.filter(d, false).size() == 0)';

describe('comprehension iterations that cost nothing', () => {
  it('cost what cel-go charges (the inner filter a few units, not one per element)', () => {
    const { guard } = steppingGuard(Number.MAX_SAFE_INTEGER);
    const out = evaluate(FREE_INNER, ZEROS, guard) as { value: boolean; cost: number };
    expect(out.value).toBe(true);
    expect(out.cost).toBeLessThan(20_000);
  });

  it('look at the deadline as they go: one clock read per TICKS_PER_CHECK iterations', () => {
    const { guard, reads } = steppingGuard(Number.MAX_SAFE_INTEGER);
    evaluate(FREE_INNER, ZEROS, guard);
    const iterations = 2_000 + 2_000 * 2_000;
    expect(reads()).toBeGreaterThanOrEqual(Math.floor(iterations / TICKS_PER_CHECK));
  });

  it('stop at the deadline with the guard\'s ReviewAborted, not after the whole loop', () => {
    const { guard, reads } = steppingGuard(1_000);
    expect(() => evaluate(FREE_INNER, ZEROS, guard)).toThrow(ReviewAborted);
    expect(guard.aborted?.reason).toBe('deadline');
    // Stopped at its first look past the deadline: some thousand reads, not the 15,600 of the whole loop.
    expect(reads()).toBeLessThan(1_100);
  });
});
