/**
 * A comprehension step can cost nothing in Kubernetes' cost model: `filter(x, false)` resolves @result
 * through cel-go's conditional attribute, unobserved, so `list.filter(x, false)` costs a few units
 * whatever the list's length. The review's deadline was looked at only on the cost path (every 20,000
 * units), so such loops nested over a review's list of 1,000,000 zeros (2 MB) ran 113 s past an 8 s
 * deadline. kube-apiserver interrupts a comprehension every 100 iterations (cel.InterruptCheckFrequency in
 * apiserver's admission/plugin/cel/compile.go); here every iteration ticks the review guard, which reads
 * its clock every TICKS_PER_CHECK ticks. Counted, not timed: a guard whose clock advances one unit per
 * read (the deadline passes after so many reads).
 *
 * A library call, too, may cost next to nothing and still walk a large argument or build a large result:
 * Kubernetes charges max() its traversal cost, 0 for each string under 10 bytes, and
 * "%s".format([list]) 15. One such call per step over a review's list of 400,000 short strings ran 11 s
 * and 42 s past an 8 s deadline (the clock read every 256 steps); each library call now ticks the guard
 * by the elements and characters it was given and returned.
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

describe('library calls that cost next to nothing over large values', () => {
  const STRINGS = { spec: { s: new Array<string>(2_000).fill('a') } };

  for (const [name, expression] of [
    ['max() of short strings', 'object.spec.s.all(e, object.spec.s.max() != "")'],
    ['format of a list', 'object.spec.s.all(e, "%s".format([object.spec.s]) != "")'],
  ] as const) {
    it(`${name}: cost what Kubernetes charges, and the deadline is looked at as they work`, () => {
      const { guard, reads } = steppingGuard(Number.MAX_SAFE_INTEGER);
      const out = evaluate(expression, STRINGS, guard) as { value: boolean; cost: number };
      expect(out.value).toBe(true);
      expect(out.cost).toBeLessThan(100_000);
      // 2,000 calls, each over 2,000 elements (or a text of 4,000 characters): more than TICKS_PER_CHECK
      // steps each, so the clock is read at every call.
      expect(reads()).toBeGreaterThanOrEqual(2_000);
    });

    it(`${name}: stops at the deadline within a few calls`, () => {
      const { guard, reads } = steppingGuard(100);
      expect(() => evaluate(expression, STRINGS, guard)).toThrow(ReviewAborted);
      expect(guard.aborted?.reason).toBe('deadline');
      expect(reads()).toBeLessThan(110);
    });
  }
});

