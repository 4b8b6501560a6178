/**
 * utf8Length counts what TextEncoder writes. A high surrogate was taken as the first half of a pair
 * whatever followed it, so "\ud800" + "é" counted 4 bytes (the pair's) where 5 are written (U+FFFD, then
 * é): a text body of such pairs passed the body limit by a third, and CEL string costs came out low.
 */
import { describe, expect, it } from 'vitest';
import { utf8Length } from '../../src/json/index.js';
import { readBoundedBody } from '../../src/server/body.js';
import { resolveLimits } from '../../src/server/index.js';

const encoded = (s: string) => new TextEncoder().encode(s).length;

describe('utf8Length', () => {
  it('counts every text as TextEncoder encodes it, lone surrogates as U+FFFD', () => {
    const units = ['a', 'é', 'ࠀ', '\u{10000}', '😀', '\ud800', '\udc00', '\udbff', '\uffff', '\u007f', '\u0080', '\u07ff'];
    for (const a of units) for (const b of units) for (const c of units) {
      const s = a + b + c;
      expect(utf8Length(s), JSON.stringify(s)).toBe(encoded(s));
    }
    expect(utf8Length('\ud800é'.repeat(1000))).toBe(5000);
    expect(utf8Length('\ud800\u0800'.repeat(1000))).toBe(6000);
  });

  it('holds a text body of lone surrogates to the body limit', async () => {
    const limits = resolveLimits({ maxBodyBytes: 6000 });
    // 1,000 pairs: 6,000 bytes as UTF-8 (fits); 1,001: 6,006 (over). Counted as 4 bytes a pair before, both fit.
    const body = (pairs: number) => {
      const request = new Request('https://amender.test/mutate', { method: 'POST' });
      return Object.assign(request, { takeBodyText: () => '\ud800\u0800'.repeat(pairs) });
    };
    expect((await readBoundedBody(body(1000), limits)).ok).toBe(true);
    expect(await readBoundedBody(body(1001), limits)).toMatchObject({ ok: false, status: 413 });
  });
});
