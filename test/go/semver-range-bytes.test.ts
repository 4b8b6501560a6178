/**
 * blang/semver's ParseRange splits the range at spaces and keeps a piece only when it is more than one
 * byte long (splitAndTrim: `last < i-1`, and `last < len(s)-1` for the last piece). Bytes of UTF-8: a
 * piece of one non-ASCII character is kept, then refused as no version. Counting UTF-16 units dropped
 * it, so `semver_compare('1.0.0', '>=1.0.0 é')` compared where Kyverno fails.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/kyverno/jmespath/index.js';

const outcome = (range: string) => {
  const r = evaluate('semver_compare(v, r)', { v: '1.0.0', r: range });
  return r.ok ? r.value : r.error.message;
};

describe('pieces of a semver range, measured in bytes', () => {
  it.each([
    ['>=1.0.0 é', 'Could not get version from string: "é"'],
    ['é', 'Could not get version from string: "é"'],
    ['x é', 'Could not get version from string: "é"'],
    ['>=1.0.0 😀 <2.0.0', 'Could not get version from string: "😀"'],
    ['>=1.0.0 \u00a0', 'Could not get version from string: "\\u00a0"'], // Go's %q escapes a no-break space
  ])('%j keeps its one-character piece and fails', (range, message) => {
    expect(outcome(range)).toBe(message);
  });

  it.each([
    ['>=1.0.0 x', true],
    ['x >=1.0.0', true],
    ['>=1.0.0 <2.0.0', true],
    ['>= 1.0.0', true],
  ])('%j: a one-byte piece is dropped, as in Go', (range, result) => {
    expect(outcome(range)).toBe(result);
  });
});
