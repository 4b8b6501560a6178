/** The review guard inside JMESPath: trips leave as ReviewAborted, never swallowed by tolerant contexts. */
import { describe, expect, it } from 'vitest';
import { ReviewAborted, ReviewGuard } from '../../../src/guard/index.js';
import { evaluate, search } from '../../../src/kyverno/jmespath/index.js';
import type { JsonValue } from '../../../src/json/index.js';

const MiB = 1 << 20;
const guard = (maxValueBytes = MiB) => new ReviewGuard({ deadlineMs: 60_000, maxValueBytes });
const doubled = (n: number) => ['@', ...Array.from({ length: n }, () => '[@, @][]')].join(' | ');

function abortOf(fn: () => unknown): ReviewAborted {
  try {
    fn();
  } catch (error) {
    if (error instanceof ReviewAborted) return error;
    throw error;
  }
  throw new Error('expected the guard to trip');
}

describe('size bound', () => {
  it('a doubling flatten stops at the bound, also where errors are otherwise swallowed', () => {
    const data = ['some text', 'more text'];
    for (const expression of [doubled(40), `(${doubled(40)})[?@]`, `(${doubled(40)})[]`, `x || (${doubled(40)})`, `length(${doubled(40)})`]) {
      expect(abortOf(() => search(expression, data, { guard: guard() }))).toMatchObject({ reason: 'size' });
    }
    // Below the bound the same construction is an ordinary value.
    expect(search(`length(${doubled(10)})`, data, { guard: guard() })).toBe(2048);
  });

  it('evaluate() lets the guard through instead of reporting a JMESPath error', () => {
    expect(() => evaluate(doubled(40), ['x'], { guard: guard() })).toThrow(ReviewAborted);
  });

  it('text-growing functions are checked before they build', () => {
    const g = guard(64 * 1024);
    expect(abortOf(() => search("replace_all(@, 'a', 'aaaa')", 'a'.repeat(20_000), { guard: g })).message).toMatch(/replace_all\(\)/);
    expect(abortOf(() => search('base64_encode(@)', 'x'.repeat(50_000), { guard: g })).message).toMatch(/base64_encode\(\)/);
    expect(abortOf(() => search("join('', [@, @, @])", 'x'.repeat(25_000), { guard: g })).message).toMatch(/join\(\)/);
    expect(abortOf(() => search("regex_replace_all('x', @, '$0$0$0$0')", 'x'.repeat(20_000), { guard: g })).message).toMatch(/regex replacement/);
    // Under the bound they are what they always were.
    expect(search("length(replace_all(@, 'a', 'aaaa'))", 'a'.repeat(1000), { guard: g })).toBe(4000);
  });

  it('a value sharing its subtrees is measured once per subtree', () => {
    const shared = ['@', ...Array.from({ length: 40 }, () => '[@, @]')].join(' | ');
    // Building it is free; writing it out would be 2^40 leaves.
    expect(search(`length(${shared})`, 'x', { guard: guard() })).toBe(2);
    expect(abortOf(() => search(`to_string(${shared})`, 'x', { guard: guard() })).message).toMatch(/to_string\(\)/);
    expect(abortOf(() => search(`sort_by([${shared}], &to_string(@))`, 'x', { guard: guard() })).reason).toBe('size');
  });
});

describe('deadline', () => {
  it('projections tick the guard: a clock past the deadline stops them', () => {
    let now = 0;
    const stepping = new ReviewGuard({ deadlineMs: 10, maxValueBytes: MiB, now: () => now++ });
    const data = Array.from({ length: 100_000 }, (_, i) => ({ i }));
    expect(abortOf(() => search('[*].i', data, { guard: stepping }))).toMatchObject({ reason: 'deadline' });
    // Once tripped, the guard stays tripped: the engine sees it before its next step.
    expect(stepping.aborted?.reason).toBe('deadline');
  });
});

describe('sorts tick the guard in their comparisons', () => {
  // One call of n log n comparisons: before, a sort of a few million strings ran seconds past the
  // deadline. Polls are counted (a cancellation that answers true from the first poll), not timed.
  const strings = Array.from({ length: 20_000 }, (_, i) => `k${(i * 7919) % 20_000}`);
  const numbers = strings.map((_, i) => (i * 7919) % 20_000);
  for (const [expression, data] of [
    ['sort(a)', { a: strings }],
    ['sort(a)', { a: numbers }],
    ['sort_by(a, &@)', { a: strings }],
  ] as const) {
    it(`${expression} over ${typeof data.a[0]}s stops once the review is cancelled`, () => {
      let polls = 0;
      const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: Number.MAX_SAFE_INTEGER, isCancelled: () => ++polls > 0 });
      expect(() => search(expression, data as unknown as JsonValue, { guard })).toThrow(ReviewAborted);
      expect(polls).toBe(1);
      // Without the cancellation the sort is whole.
      const free = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: Number.MAX_SAFE_INTEGER });
      expect((search(expression, data as unknown as JsonValue, { guard: free }) as unknown[]).length).toBe(20_000);
    });
  }
});
