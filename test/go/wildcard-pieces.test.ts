/**
 * The wildcard matcher places the pattern's pieces between `*`s (src/go/wildcard.ts) instead of
 * backtracking over the last `*`. Two things are checked: it decides exactly what the textbook definition
 * decides (a dynamic program over runes, below) on many generated patterns, long pieces included; and its
 * work no longer grows with pattern × text. Before, a 2,000-character piece after a `*` against a 50 KB
 * annotation cost 50,000 backtracks of up to 2,000 steps each: in a precondition the review guard stopped
 * it at the deadline, and in match blocks, condition anchors and pattern_match nothing did (seconds of a
 * shared worker for one review). Work is counted as clock reads of the review guard, not timed.
 */
import { describe, expect, it } from 'vitest';
import { wildcardMatch } from '../../src/go/index.js';
import { ReviewGuard, TICKS_PER_CHECK } from '../../src/guard/index.js';
import { evaluateOperator } from '../../src/kyverno/match/operators.js';

/** `*` any run of runes, `?` one rune, anything else itself: the dynamic program over code points. */
function reference(pattern: string, text: string): boolean {
  const p = Array.from(pattern);
  const t = Array.from(text);
  let row = new Array<boolean>(t.length + 1).fill(false);
  row[0] = true;
  for (const c of p) {
    const next = new Array<boolean>(t.length + 1).fill(false);
    if (c === '*') {
      let seen = false;
      for (let j = 0; j <= t.length; j++) next[j] = seen ||= row[j];
    } else {
      for (let j = 1; j <= t.length; j++) next[j] = row[j - 1] && (c === '?' || c === t[j - 1]);
    }
    row = next;
  }
  return row[t.length];
}

/** A small deterministic generator (the cases are the same on every run). */
function generator(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
}

function pick(random: (n: number) => number, alphabet: readonly string[], length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[random(alphabet.length)];
  return out;
}

describe('wildcardMatch decides as the definition', () => {
  it('on generated short patterns and texts', () => {
    const random = generator(7);
    for (let i = 0; i < 4000; i++) {
      const pattern = pick(random, ['a', 'b', '?', '*'], random(9));
      const text = pick(random, ['a', 'b'], random(12));
      expect(wildcardMatch(pattern, text), `${pattern} ~ ${text}`).toBe(reference(pattern, text));
    }
  });

  it('on pieces longer than a machine word (33, 64, 65 and 100 runes), with and without `?`', () => {
    const random = generator(11);
    for (const length of [33, 64, 65, 100]) {
      for (let i = 0; i < 150; i++) {
        const text = pick(random, ['a', 'b'], 150 + random(150));
        const start = random(text.length - length);
        let piece = text.slice(start, start + length).split('');
        if (i % 2 === 0) piece = piece.map((c) => (random(4) === 0 ? '?' : c));
        // Present most of the time; one rune changed otherwise.
        if (i % 5 === 0) piece[random(length)] = 'c';
        const pattern = `${pick(random, ['a', 'b', '?'], random(3))}*${piece.join('')}*${pick(random, ['a', 'b', '?'], random(3))}`;
        expect(wildcardMatch(pattern, text), `${pattern} ~ ${text}`).toBe(reference(pattern, text));
      }
    }
  });

  it('on runes outside the basic plane', () => {
    const random = generator(13);
    for (let i = 0; i < 1500; i++) {
      const pattern = pick(random, ['😀', 'é', '?', '*', 'a'], random(8));
      const text = pick(random, ['😀', 'é', 'a'], random(10));
      expect(wildcardMatch(pattern, text), `${pattern} ~ ${text}`).toBe(reference(pattern, text));
    }
  });
});

describe('the work grows with the text, not with pattern × text', () => {
  /** A guard whose clock moves one unit per read: its deadline is a number of clock reads. */
  const countingGuard = (reads: number) => {
    let clock = 0;
    return new ReviewGuard({ deadlineMs: reads, maxValueBytes: Number.MAX_SAFE_INTEGER, now: () => clock++ });
  };
  const text = 'a'.repeat(50_000);

  it('a long literal after `*` in an Equals precondition is decided without running into the deadline', () => {
    // Before: one clock read per 256 backtracks, 50,000 backtracks: past 100 reads.
    const guard = countingGuard(100);
    expect(evaluateOperator('equals', text, `*${'a'.repeat(2000)}b`, guard)).toBe(false);
    expect(evaluateOperator('equals', text, `*${'a'.repeat(2000)}`, guard)).toBe(true);
    expect(guard.aborted).toBeUndefined();
  });

  it('a piece holding `?` between two `*`s reads the text once (a clock read per TICKS_PER_CHECK runes)', () => {
    for (const [pattern, matched] of [[`*?${'a'.repeat(2000)}b*`, false], [`*${'?a'.repeat(1000)}*`, true]] as const) {
      // Before: a clock read per 256 candidate places, each compared over up to 2,000 runes.
      const guard = countingGuard(Math.ceil(text.length / TICKS_PER_CHECK) + 2);
      expect(wildcardMatch(pattern, text, guard)).toBe(matched);
      expect(guard.aborted).toBeUndefined();
    }
  });
});
