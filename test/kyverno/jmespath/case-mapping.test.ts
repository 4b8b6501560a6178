/**
 * to_upper / to_lower map rune by rune with Go's unicode.ToUpper / ToLower (UnicodeData's simple
 * mappings). The Greek letters with ypogegrammeni have a one-rune simple uppercase, the titlecase letter
 * (unicode/tables.go CaseRanges {0x1F80, 0x1F87, d{8, 0, 8}}, {0x1FB3, 0x1FB3, d{9, 0, 9}}), where the
 * full mapping JavaScript applies is two runes; runes whose only uppercase is several (ß, ŉ, ǰ, ﬀ) stay.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';

const value = (expression: string, s: string) => {
  const r = evaluate(expression, { s });
  if (!r.ok) throw r.error;
  return r.value;
};

describe('Go simple case mapping', () => {
  it('Greek letters with ypogegrammeni upper-case to their titlecase letter', () => {
    expect(value('to_upper(s)', 'ᾀᾗᾧᾳῃῳ')).toBe('ᾈᾟᾯᾼῌῼ');
    expect(value('to_upper(s)', 'ᾈᾼ')).toBe('ᾈᾼ');
    expect(value('to_lower(s)', 'ᾈᾼ')).toBe('ᾀᾳ');
  });
  it('a rune whose uppercase is several runes stays', () => {
    expect(value('to_upper(s)', 'ßŉǰﬀ')).toBe('ßŉǰﬀ');
  });
});
