/**
 * semver_compare's range comes from wherever the policy reads it, a review's annotation included: `1.x `
 * repeated over 3 MB is 750,000 comparators, each expanded and parsed in a few microseconds, 3 s in one
 * call that never looked at the review's deadline. Each comparator now ticks the guard. Counted, not
 * timed: a guard whose clock advances one unit per reading.
 */
import { describe, expect, it } from 'vitest';
import { ReviewAborted, ReviewGuard, TICKS_PER_CHECK } from '../../src/guard/index.js';
import { evaluate } from '../../src/kyverno/jmespath/index.js';

const COMPARATORS = 20_000;
const range = '1.x '.repeat(COMPARATORS);

function steppingGuard(deadlineReads: number): { guard: ReviewGuard; reads: () => number } {
  let now = 0;
  const guard = new ReviewGuard({ deadlineMs: deadlineReads, maxValueBytes: 6 << 20, now: () => now++ });
  return { guard, reads: () => now };
}

describe('semver_compare with a range of many comparators from the review', () => {
  it('reads the clock as it expands and parses them', () => {
    const { guard, reads } = steppingGuard(Number.MAX_SAFE_INTEGER);
    expect(evaluate("semver_compare('1.0.0', r)", { r: range }, { guard })).toEqual({ ok: true, value: true });
    expect(reads()).toBeGreaterThanOrEqual(Math.floor((2 * COMPARATORS) / TICKS_PER_CHECK));
  });

  it('stops at the deadline inside the range, with the guard\'s error rather than a function error', () => {
    const { guard, reads } = steppingGuard(10);
    expect(() => evaluate("semver_compare('1.0.0', r)", { r: range }, { guard })).toThrow(ReviewAborted);
    expect(guard.aborted?.reason).toBe('deadline');
    expect(reads()).toBeLessThan(15);
  });
});
