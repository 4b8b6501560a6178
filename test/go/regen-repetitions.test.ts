/**
 * random(pattern) (JMESPath and the Kyverno CEL dialect, src/go/regen.ts) draws at most
 * MAX_REGEN_REPETITIONS repetitions per pattern. Nested unbounded repetitions multiply, and a repetition
 * of something empty writes nothing, so the review's size bound never stopped `(()*)*…`: twenty levels
 * ran until the review's deadline (8 s of one CPU), stopping every rule after it. goregen has no bound.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REGEN_REPETITIONS } from '../../src/go/regen.js';
import { ReviewGuard } from '../../src/guard/index.js';
import { evaluate } from '../../src/kyverno/jmespath/index.js';

/** A guard whose clock advances 1 ms at each reading: its deadline is a count of work, not of time. */
function countingGuard(): ReviewGuard {
  let clock = 0;
  return new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 6 * 1024 * 1024, now: () => clock++ });
}

const outcome = (expression: string, draw: number) => {
  const r = evaluate(expression, {}, { guard: countingGuard(), random: () => draw });
  return r.ok ? { value: r.value } : { kind: r.error.kind, message: r.error.message };
};

describe('the repetitions random() draws', () => {
  it('nested repetitions of nothing fail the function at once, not the review at its deadline', () => {
    const pattern = `${'('.repeat(20)})*${')*'.repeat(19)}`;
    expect(outcome(`random('${pattern}')`, 0.99)).toEqual({
      kind: 'function',
      message: `random(): the pattern repeats more than ${MAX_REGEN_REPETITIONS} times in all (nested repetitions multiply)`,
    });
  });

  it('nested repetitions that write are stopped by the same count', () => {
    expect(outcome(`random('(((((((a|b)*)*)*)*)*)*)')`, 0.99)).toMatchObject({ kind: 'function' });
  });

  it('patterns that draw less are generated as before', () => {
    expect(outcome("length(random('[a-z]{1000}'))", 0.5)).toEqual({ value: 1000 });
    // Four nested stars at 10 each: 10,000 letters from 11,110 repetitions.
    expect(outcome("length(random('((((a*)*)*)*)'))", 0.99)).toEqual({ value: 10_000 });
  });
});
