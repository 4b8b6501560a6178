/**
 * cel-go's indexOf / lastIndexOf / charAt / substring count runes: the linear search (src/cel/lib/rune-search.ts) against the
 * definition (compare the runes at every position), on texts with surrogate pairs and lone surrogates,
 * and on a text and substring long enough that comparing at every position would take minutes.
 */
import { describe, expect, it } from 'vitest';
import { Prng } from '../../reliability/helpers/prng.js';
import { cel, celError } from './env.js';

/** The definition: the first (last) rune index i in [from, …] ([…, from]) where the substring's runes are. */
function definition(s: string, sub: string, from: number, last: boolean): number {
  const r = Array.from(s);
  const u = Array.from(sub);
  const fits = (i: number) => u.every((c, j) => r[i + j] === c);
  if (last) {
    for (let i = Math.min(from, r.length - u.length); i >= 0; i--) if (fits(i)) return i;
  } else {
    for (let i = from; i <= r.length - u.length; i++) if (fits(i)) return i;
  }
  return -1;
}

// Pairs, their halves alone, and plain letters: matches that would cut a pair must not count.
const PIECES = ['a', 'b', '😀', '😁', '\ud83d', '\ude00', 'é'];

describe('indexOf and lastIndexOf by runes', () => {
  it('agree with the definition on random texts with surrogate pairs and lone surrogates', () => {
    const random = new Prng(11);
    const text = (max: number) => Array.from({ length: random.int(max) }, () => random.pick(PIECES)).join('');
    for (let round = 0; round < 3000; round++) {
      const s = text(14);
      const sub = text(4) || 'a';
      const runes = Array.from(s).length;
      const bindings = { s, sub };
      expect(cel('s.indexOf(sub)', bindings), JSON.stringify(bindings)).toBe(BigInt(Array.from(sub).length > runes ? -1 : definition(s, sub, 0, false)));
      expect(cel('s.lastIndexOf(sub)', bindings), JSON.stringify(bindings)).toBe(BigInt(Array.from(sub).length > runes ? -1 : definition(s, sub, runes - 1, true)));
      if (runes === 0) continue;
      const from = random.int(runes);
      expect(cel(`s.indexOf(sub, ${from})`, bindings), JSON.stringify({ ...bindings, from })).toBe(BigInt(definition(s, sub, from, false)));
      expect(cel(`s.lastIndexOf(sub, ${from})`, bindings), JSON.stringify({ ...bindings, from })).toBe(BigInt(definition(s, sub, from, true)));
    }
  });

  it('does not match inside a surrogate pair', () => {
    expect(cel("'😀😀'.indexOf(s)", { s: '\ude00\ud83d' })).toBe(-1n);
    expect(cel("'😀😀'.lastIndexOf(s)", { s: '\ude00' })).toBe(-1n);
    expect(cel("'a\ud83d'.indexOf(s)", { s: '\ud83d' })).toBe(1n);
    expect(cel("'😀a😀'.lastIndexOf('😀')")).toBe(2n);
    expect(celError("'😀'.indexOf('a', 1)")).toBe('index out of range: 1');
  });

  it('is linear in the text when the substring is long (comparing at every position: minutes here)', () => {
    for (const c of ['a', '😀']) {
      const s = `${c.repeat(400_000)}!`;
      const sub = `${c.repeat(200_000)}y`;
      expect(cel('s.indexOf(sub)', { s, sub })).toBe(-1n);
      expect(cel('s.lastIndexOf(sub)', { s, sub })).toBe(-1n);
      expect(cel('s.indexOf(sub, 5)', { s, sub: sub.slice(0, -1) })).toBe(5n);
      expect(cel('s.lastIndexOf(sub)', { s, sub: `${sub.slice(0, -1)}!` })).toBe(200_000n);
    }
  });
});

describe('charAt and substring by runes', () => {
  it('agree with the runes of Array.from on random texts, short and long, several texts in turn', () => {
    const random = new Prng(13);
    const text = (max: number) => Array.from({ length: random.int(max) }, () => random.pick(PIECES)).join('');
    // Long texts (≥ 64 code units) go through the one-text cache; alternating texts must not mix answers.
    const texts = [text(12), text(12), 'x'.repeat(80) + text(40), 'y'.repeat(90), text(120), 'y'.repeat(90) + '😀'];
    for (let round = 0; round < 2000; round++) {
      const s = random.pick(texts);
      const r = Array.from(s);
      const i = random.int(r.length + 1);
      const j = i + random.int(r.length - i + 1);
      const bindings = { s };
      expect(cel(`s.charAt(${i})`, bindings), JSON.stringify({ s, i })).toBe(r[i] ?? '');
      expect(cel(`s.substring(${i})`, bindings), JSON.stringify({ s, i })).toBe(r.slice(i).join(''));
      expect(cel(`s.substring(${i}, ${j})`, bindings), JSON.stringify({ s, i, j })).toBe(r.slice(i, j).join(''));
      expect(celError(`s.charAt(${r.length + 1})`, bindings)).toBe(`index out of range: ${r.length + 1}`);
      expect(celError(`s.substring(${i}, ${r.length + 1})`, bindings)).toBe(`index out of range: ${r.length + 1}`);
    }
  });

  it('does not read the whole text again on every call of a loop over a long text', () => {
    // 40,000 rounds on a 1 MB text: splitting it into runes, or counting them, per call took minutes.
    for (const head of ['a', '😀', '€']) {
      const s = `${head}${'a'.repeat(1_000_000)}`;
      const expr = "lists.range(40000).all(i, s.charAt(i + 1) == 'a' && s.substring(i + 1, i + 2) == 'a' && s.size() == 1000001)";
      expect(cel(expr, { s }), head).toBe(true);
      expect(cel('s.charAt(0) + s.substring(999999)', { s }), head).toBe(`${head}aa`);
    }
  });
});
