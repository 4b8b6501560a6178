/**
 * The review's final diff walked the members both versions share without looking at the deadline (only a
 * changed value ticked the guard): a Pod's 200,000 unchanged labels (a 2.7 MB review) took 0.26 s in
 * createPatch with no chance to stop. Every member now ticks. Counted, not timed: a guard whose clock
 * advances one unit per reading.
 */
import { describe, expect, it } from 'vitest';
import { ReviewAborted, ReviewGuard, TICKS_PER_CHECK } from '../../src/guard/index.js';
import { createPatch } from '../../src/jsonpatch/index.js';

const KEYS = 20_000;
const labels = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`l${i}`, 'v']));
const before = { metadata: { labels } };
const after = { metadata: { labels: { ...labels, team: 'x' } } };

function steppingGuard(deadlineReads: number): { guard: ReviewGuard; reads: () => number } {
  let now = 0;
  const guard = new ReviewGuard({ deadlineMs: deadlineReads, maxValueBytes: 6 << 20, now: () => now++ });
  return { guard, reads: () => now };
}

describe('createPatch over an object of many unchanged members', () => {
  it('reads the clock as it walks them: about one reading per TICKS_PER_CHECK members', () => {
    const { guard, reads } = steppingGuard(Number.MAX_SAFE_INTEGER);
    expect(createPatch(before, after, guard)).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'x' }]);
    expect(reads()).toBeGreaterThanOrEqual(Math.floor(KEYS / TICKS_PER_CHECK));
  });

  it('stops at the deadline inside the walk', () => {
    const { guard, reads } = steppingGuard(10);
    expect(() => createPatch(before, after, guard)).toThrow(ReviewAborted);
    expect(guard.aborted?.reason).toBe('deadline');
    expect(reads()).toBeLessThan(15);
  });
});
