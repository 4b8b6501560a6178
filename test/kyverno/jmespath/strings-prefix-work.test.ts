/**
 * truncate and trim read a text's runes only as far as their answer needs: truncate the first n, trim
 * those it cuts from each end. Splitting the whole text into an array of runes first cost about 1 s and
 * hundreds of MB for a 20 MB review string, whatever the answer.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';

const big = 'ab😀'.repeat(5_000_000); // 20 M UTF-16 units
// Read once before any timing: V8 builds the repeated text as a rope and flattens it on first read.
let sum = 0;
for (let i = 0; i < big.length; i += 4096) sum += big.charCodeAt(i);
if (sum < 0) throw new Error('unreachable');

function timed(expression: string): { value: unknown; ms: number } {
  const start = performance.now();
  const r = evaluate(expression, { s: big });
  const ms = performance.now() - start;
  if (!r.ok) throw r.error;
  return { value: r.value, ms };
}

describe('truncate and trim on a long text', () => {
  it('truncate(s, `3`) reads three runes', () => {
    const { value, ms } = timed('truncate(s, `3`)');
    expect(value).toBe('ab😀');
    expect(ms).toBeLessThan(1500); // before: 4 s and 7 s here, unloaded
  });
  it("trim(s, 'z') stops at each end's first rune", () => {
    const { value, ms } = timed("truncate(trim(s, 'z'), `2`)");
    expect(value).toBe('ab');
    expect(ms).toBeLessThan(1500); // before: 4 s and 7 s here, unloaded
  });
});
