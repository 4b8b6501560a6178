/**
 * equal_fold is Go's strings.EqualFold: runes equal, or in one orbit of unicode.SimpleFold (Unicode's
 * simple case folding). 'İ' (U+0130) and 'ı' (U+0131) have no simple folding: each orbit is the rune
 * itself (unicode/tables.go caseOrbit {0x0130, 0x0130}, {0x0131, 0x0131}), so neither equals 'i' or 'I',
 * though their case mappings give them. Cases after Go's EqualFoldTests (strings/strings_test.go).
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';

const fold = (s: string, t: string) => {
  const r = evaluate('equal_fold(s, t)', { s, t });
  if (!r.ok) throw r.error;
  return r.value;
};

describe('equal_fold', () => {
  it.each([
    ['abc', 'abc', true],
    ['ABcd', 'ABcd', true],
    ['123abc', '123ABC', true],
    ['αβδ', 'ΑΒΔ', true],
    ['abc', 'xyz', false],
    ['abc', 'XYZ', false],
    ['abcdefghijk', 'abcdefghijX', false],
    ['abcdefghijk', 'abcdefghij\u212A', true],
    ['abcdefghijK', 'abcdefghij\u212A', true],
    ['abcdefghijkz', 'abcdefghij\u212Ay', false],
    ['abcdefghijKz', 'abcdefghij\u212Ay', false],
    ['1', '2', false],
    ['utf-8', 'US-ASCII', false],
    ['ß', 'ẞ', true],
    ['ß', 'SS', false],
    ['ſ', 'S', true],
    ['µ', 'Μ', true],
    ['ǅ', 'Ǆ', true],
    ['@', '`', false],
  ])('%j %j', (s, t, expected) => {
    expect(fold(s, t)).toBe(expected);
  });
  it("'İ' and 'ı' fold only to themselves", () => {
    expect(fold('İ', 'i')).toBe(false);
    expect(fold('İ', 'I')).toBe(false);
    expect(fold('ı', 'I')).toBe(false);
    expect(fold('ı', 'i')).toBe(false);
    expect(fold('İı', 'İı')).toBe(true);
  });
});
