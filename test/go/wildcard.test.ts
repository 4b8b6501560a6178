/**
 * Kyverno's one wildcard matcher (src/go/wildcard.ts), used by the engine and by `pattern_match`.
 * The JMESPath module once had its own byte-wise copy in which `.` matched any byte and a trailing `?`
 * could match nothing; Kyverno's own table (ext/wildcard/match_test.go, transcribed below) says `?` is
 * exactly one character, and both uses call the same function there.
 */
import { describe, expect, it } from 'vitest';
import { wildcardMatch } from '../../src/go/index.js';
import { evaluate } from '../../src/kyverno/jmespath/index.js';
import { evaluateOperator } from '../../src/kyverno/match/operators.js';

/** [pattern, text, matched] — Kyverno's TestMatch cases in order. */
const KYVERNO_CASES: [string, string, boolean][] = [
  ['*', 's3:GetObject', true],
  ['', 's3:GetObject', false],
  ['', '', true],
  ['s3:*', 's3:ListMultipartUploadParts', true],
  ['s3:ListBucketMultipartUploads', 's3:ListBucket', false],
  ['s3:ListBucket', 's3:ListBucket', true],
  ['s3:ListBucketMultipartUploads', 's3:ListBucketMultipartUploads', true],
  ['my-bucket/oo*', 'my-bucket/oo', true],
  ['my-bucket/In*', 'my-bucket/India/Karnataka/', true],
  ['my-bucket/In*', 'my-bucket/Karnataka/India/', false],
  ['my-bucket/In*/Ka*/Ban', 'my-bucket/India/Karnataka/Ban', true],
  ['my-bucket/In*/Ka*/Ban', 'my-bucket/India/Karnataka/Ban/Ban/Ban/Ban/Ban', true],
  ['my-bucket/In*/Ka*/Ban', 'my-bucket/India/Karnataka/Area1/Area2/Area3/Ban', true],
  ['my-bucket/In*/Ka*/Ban', 'my-bucket/India/State1/State2/Karnataka/Area1/Area2/Area3/Ban', true],
  ['my-bucket/In*/Ka*/Ban', 'my-bucket/India/Karnataka/Bangalore', false],
  ['my-bucket/In*/Ka*/Ban*', 'my-bucket/India/Karnataka/Bangalore', true],
  ['my-bucket/*', 'my-bucket/India', true],
  ['my-bucket/oo*', 'my-bucket/odo', false],
  ['my-bucket?/abc*', 'mybucket/abc', false],
  ['my-bucket?/abc*', 'my-bucket1/abc', true],
  ['my-?-bucket/abc*', 'my--bucket/abc', false],
  ['my-?-bucket/abc*', 'my-1-bucket/abc', true],
  ['my-?-bucket/abc*', 'my-k-bucket/abc', true],
  ['my??bucket/abc*', 'mybucket/abc', false],
  ['my??bucket/abc*', 'my4abucket/abc', true],
  ['my-bucket?abc*', 'my-bucket/abc', true],
  ['my-bucket/abc?efg', 'my-bucket/abcdefg', true],
  ['my-bucket/abc?efg', 'my-bucket/abc/efg', true],
  ['my-bucket/abc????', 'my-bucket/abc', false],
  ['my-bucket/abc????', 'my-bucket/abcde', false],
  ['my-bucket/abc????', 'my-bucket/abcdefg', true],
  ['my-bucket/abc?', 'my-bucket/abc', false],
  ['my-bucket/abc?', 'my-bucket/abcd', true],
  ['my-bucket/abc?', 'my-bucket/abcde', false],
  ['my-bucket/mnop*?', 'my-bucket/mnop', false],
  ['my-bucket/mnop*?', 'my-bucket/mnopqrst/mnopqr', true],
  ['my-bucket/mnop*?', 'my-bucket/mnopqrst/mnopqrs', true],
  ['my-bucket/mnop*?', 'my-bucket/mnop', false],
  ['my-bucket/mnop*?', 'my-bucket/mnopq', true],
  ['my-bucket/mnop*?', 'my-bucket/mnopqr', true],
  ['my-bucket/mnop*?and', 'my-bucket/mnopqand', true],
  ['my-bucket/mnop*?and', 'my-bucket/mnopand', false],
  ['my-bucket/mnop*?and', 'my-bucket/mnopqand', true],
  ['my-bucket/mnop*?', 'my-bucket/mn', false],
  ['my-bucket/mnop*?', 'my-bucket/mnopqrst/mnopqrs', true],
  ['my-bucket/mnop*??', 'my-bucket/mnopqrst', true],
  ['my-bucket/mnop*qrst', 'my-bucket/mnopabcdegqrst', true],
  ['my-bucket/mnop*?and', 'my-bucket/mnopqand', true],
  ['my-bucket/mnop*?and', 'my-bucket/mnopand', false],
  ['my-bucket/mnop*?and?', 'my-bucket/mnopqanda', true],
  ['my-bucket/mnop*?and', 'my-bucket/mnopqanda', false],
  ['my-?-bucket/abc*', 'my-bucket/mnopqanda', false],
];

/** Where the two copies disagreed: `.` is literal, `?` is one rune, never none. */
const DISAGREEMENTS: [string, string, boolean][] = [
  ['a.c', 'abc', false],
  ['a.c', 'a.c', true],
  ['abc?', 'abc', false],
  ['?', 'é', true],
  ['??', 'é', false],
  ['?', '😀', true],
];

/**
 * Runes, not UTF-16 code units, wherever a surrogate pair is involved (the matcher walks code units only
 * when neither string holds a surrogate): `?` takes a whole pair, and a lone surrogate in the pattern
 * matches no half of a pair.
 */
const SURROGATES: [string, string, boolean][] = [
  ['a*b', 'a😀b', true],
  ['?b', '😀b', true],
  ['??b', '😀b', false],
  ['*😀', 'x😀', true],
  ['\uD83D*', '😀', false],
  ['*\uDE00', '😀', false],
  ['*\uDE00', '\uDE00', true],
  ['é?', 'éa', true],
  ['r*.com/*', 'registry.example.com/mesh/proxy:1', true],
];

describe('wildcardMatch', () => {
  for (const [pattern, text, matched] of [...KYVERNO_CASES, ...DISAGREEMENTS, ...SURROGATES]) {
    it(`${JSON.stringify(pattern)} ~ ${JSON.stringify(text)} → ${matched}`, () => {
      expect(wildcardMatch(pattern, text)).toBe(matched);
    });
  }
});

describe('the same matcher behind pattern_match and the Equals operator', () => {
  for (const [pattern, text, matched] of DISAGREEMENTS) {
    it(`pattern_match(${JSON.stringify(pattern)}, ${JSON.stringify(text)}) → ${matched}`, () => {
      expect(evaluate('pattern_match(p, t)', { p: pattern, t: text })).toEqual({ ok: true, value: matched });
      expect(evaluateOperator('equals', text, pattern)).toBe(matched);
    });
  }
});
