/**
 * goregen (github.com/zach-klippenstein/goregen 795b5e3, pinned by Kyverno and by kyverno/sdk's CEL
 * random library) builds its generator with `GeneratorArgs{}`, whose Flags are 0 ("Default is 0
 * (syntax.POSIX)"), and calls `syntax.Parse(pattern, args.Flags)`. Without the Perl flags Go's parser
 * refuses Perl's escapes and `(?` groups, and lets quantifiers follow one another. Expected texts are
 * Go's (regexp/syntax ErrInvalidEscape, ErrMissingRepeatArgument).
 */
import { describe, expect, it } from 'vitest';
import { randomFromPattern } from '../../src/go/index.js';

const half = () => 0.5;
const fails = (pattern: string) => {
  try {
    return `generated ${JSON.stringify(randomFromPattern(pattern, half))}`;
  } catch (e) {
    return (e as Error).message;
  }
};

describe('random patterns are read as syntax.Parse(pattern, 0) reads them', () => {
  it.each([
    ['\\d{4}', 'error parsing regexp: invalid escape sequence: `\\d`'],
    ['[\\w-]', 'error parsing regexp: invalid escape sequence: `\\w`'],
    ['a\\sb', 'error parsing regexp: invalid escape sequence: `\\s`'],
    ['\\pL', 'error parsing regexp: invalid escape sequence: `\\p`'],
    ['\\p{Greek}', 'error parsing regexp: invalid escape sequence: `\\p`'],
    ['\\bx', 'error parsing regexp: invalid escape sequence: `\\b`'],
    ['\\Aa\\z', 'error parsing regexp: invalid escape sequence: `\\A`'],
    ['\\Qa.b\\E', 'error parsing regexp: invalid escape sequence: `\\Q`'],
    ['(?:ab)', 'error parsing regexp: missing argument to repetition operator: `?`'],
    ['(?i)ab', 'error parsing regexp: missing argument to repetition operator: `?`'],
    ['(?P<n>a)', 'error parsing regexp: missing argument to repetition operator: `?`'],
  ])('%s is refused', (pattern, message) => {
    expect(fails(pattern)).toBe(message);
  });

  it.each([
    ['a**', /^a*$/],
    ['a*?b', /^a*b$/],
    ['a{2}{3}', /^a{6}$/],
    ['[a-f]{6}-[0-9]{2,3}', /^[a-f]{6}-[0-9]{2,3}$/],
    ['(ab|cd)[[:digit:]]\\x41\\n', /^(ab|cd)[0-9]A\n$/],
  ])('%s is generated', (pattern, re) => {
    expect(randomFromPattern(pattern, Math.random)).toMatch(re);
  });

  it("draws from each of Go's fourteen POSIX classes (perl_groups.go), so what is drawn matches", () => {
    const classes: [string, RegExp][] = [
      ['ascii', /^[\x01-\x7f]$/],
      ['cntrl', /^[\x01-\x1f\x7f]$/],
      ['space', /^[\t\n\v\f\r ]$/],
      ['^ascii', /^[^\x00-\x7f]$/u],
      ['^print', /^[^ -~]$/u],
    ];
    for (const [name, re] of classes) {
      for (let i = 0; i < 20; i++) expect(randomFromPattern(`[[:${name}:]]`, Math.random), name).toMatch(re);
    }
    const spaces = new Set(Array.from({ length: 400 }, () => randomFromPattern('[[:space:]]', Math.random)));
    expect(spaces.has('\v')).toBe(true);
  });
  it('a negated class with no printable ASCII character draws past ASCII', () => {
    for (let i = 0; i < 20; i++) expect(randomFromPattern('[^ -~]{2}', Math.random)).toMatch(/^[^\x00-\x7f\n]{2}$/u);
  });
});

