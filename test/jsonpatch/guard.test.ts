/**
 * JSON patch application and diff under a review guard: `copy` counts what it duplicates against the
 * size bound (shared values would otherwise stand for gigabytes once written out), both loops tick the
 * guard, and its ReviewAborted is thrown rather than turned into a failed-patch result.
 */
import { describe, expect, it } from 'vitest';
import { ReviewAborted, ReviewGuard } from '../../src/guard/index.js';
import { applyPatch, createPatch, jsonSizeUpTo, type Operation } from '../../src/jsonpatch/index.js';

const doc = { metadata: { labels: { app: 'x'.repeat(100) } } };
const doublings = (n: number): Operation[] =>
  Array.from({ length: n }, (_, i) => ({ op: 'copy', from: '/metadata/labels', path: `/metadata/labels/c${i}` }) as Operation);

/** A clock that moves 1 ms at each reading. */
function steppingClock(): () => number {
  let t = 0;
  return () => t++;
}

describe('applyPatch with a guard', () => {
  it('refuses copies that would duplicate more than the bound, for every flavour', () => {
    for (const flavour of ['rfc6902', 'kubernetes', 'kyverno'] as const) {
      const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 64 * 1024 });
      expect(() => applyPatch(doc, doublings(30), flavour, guard)).toThrow(/the values copied by a JSON patch would be \d+ bytes/);
      // Without a guard the same patch applies (the values are shared, not cloned).
      const unguarded = applyPatch(doc, doublings(30), flavour);
      expect(unguarded.ok).toBe(true);
      if (unguarded.ok) expect(jsonSizeUpTo(unguarded.doc, 64 * 1024)).toBeGreaterThan(64 * 1024);
    }
  });

  it('lets copies within the bound through', () => {
    const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 64 * 1024 });
    const r = applyPatch(doc, doublings(4), 'kubernetes', guard);
    expect(r.ok).toBe(true);
  });

  it('stops a long patch at the deadline', () => {
    const guard = new ReviewGuard({ deadlineMs: 3, maxValueBytes: 6 << 20, now: steppingClock() });
    const ops: Operation[] = Array.from({ length: 5000 }, (_, i) => ({ op: 'add', path: `/a${i}`, value: i }));
    let caught: unknown;
    try {
      applyPatch({}, ops, 'rfc6902', guard);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ReviewAborted);
    expect((caught as ReviewAborted).reason).toBe('deadline');
  });
});

describe('createPatch with a guard', () => {
  it('stops a long diff at the deadline, and diffs as before without one', () => {
    const from = { items: Array.from({ length: 5000 }, (_, i) => ({ n: i })) };
    const to = { items: Array.from({ length: 5000 }, (_, i) => ({ n: i + 1 })) };
    const guard = new ReviewGuard({ deadlineMs: 3, maxValueBytes: 6 << 20, now: steppingClock() });
    expect(() => createPatch(from, to, guard)).toThrow(/deadline exceeded/);
    expect(createPatch(from, to)).toHaveLength(5000);
    // The guard of a stopped diff does not leak into the next one.
    expect(createPatch({ a: 1 }, { a: 2 })).toEqual([{ op: 'replace', path: '/a', value: 2 }]);
  });
});

describe('jsonSizeUpTo', () => {
  it('is the compact JSON length for plain documents (strings without escapes, numbers as 8)', () => {
    const value = { a: ['xy', true, null], b: { c: 'z' } };
    // {"a":["xy",8,8],"b":{"c":"z"}} with numbers/booleans/null counted as 8 each.
    expect(jsonSizeUpTo(value, 1e9)).toBeGreaterThanOrEqual(JSON.stringify(value).length - 6);
    const shared = 'x'.repeat(1000);
    expect(jsonSizeUpTo(Array.from({ length: 100 }, () => shared), 1e9)).toBeGreaterThan(100_000);
    expect(jsonSizeUpTo(Array.from({ length: 100 }, () => shared), 5000)).toBeLessThan(10_000);
  });
});
