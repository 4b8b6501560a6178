import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../../src/cel/index.js';
import { compileRe2, validateRegexLiteral } from '../../../src/cel/lib/index.js';
import { translateRe2 } from '../../../src/cel/lib/regex-fast.js';
import { cel, celError, libraryEnv } from './env.js';

describe('matches / find / findAll with RE2 semantics', () => {
  it('matches is an unanchored search, as Go MatchString', () => {
    expect(cel("'abc'.matches('b')")).toBe(true);
    expect(cel("'abc'.matches('^b')")).toBe(false);
    expect(cel("matches('abc', 'c$')")).toBe(true);
  });

  it('supports (?i) and RE2-only syntax that JS RegExp lacks', () => {
    expect(cel("'NGINX:1.25'.matches('(?i)^nginx:')")).toBe(true);
    expect(cel("'abc'.matches('(?P<first>a)bc')")).toBe(true);
    expect(cel("'x1'.matches('[[:alpha:]][[:digit:]]')")).toBe(true);
    expect(cel("'é'.matches('^\\\\pL$')")).toBe(true);
    expect(cel("'a.b'.matches('\\\\Qa.b\\\\E')")).toBe(true);
  });

  it('keeps Go meanings where JS differs: $ is end of text, . excludes only \\n, \\s is ASCII', () => {
    expect(cel("'ab\\n'.matches('b$')")).toBe(false);
    expect(cel("'a\\rc'.matches('a.c')")).toBe(true);
    expect(cel("'a\\nc'.matches('a.c')")).toBe(false);
    expect(cel("'\\u00a0'.matches('\\\\s')")).toBe(false);
  });

  it('(a+)+$ on a long string answers at once, and correctly', () => {
    const long = 'a'.repeat(100_000) + '!';
    expect(cel('s.matches("(a+)+$")', { s: long })).toBe(false);
    expect(cel('s.matches("(a+)+!$")', { s: long })).toBe(true);
    expect(cel('s.find("(a|aa)+$")', { s: long })).toBe('');
    expect(compileRe2('(a+)+$').usesFastPath(long)).toBe(false);
  });

  it('a*b searched across a long run of a (quadratic for backtracking) stays correct', () => {
    const long = 'a'.repeat(200_000);
    expect(cel('s.matches("a*b")', { s: long })).toBe(false);
    expect(compileRe2('a*b').usesFastPath(long)).toBe(false);
    expect(compileRe2('a*b').usesFastPath('aaab')).toBe(true);
  });

  it('find returns the leftmost-first match, or the empty string', () => {
    expect(cel("'this is a 123 string 456'.find('[0-9]+')")).toBe('123');
    expect(cel("'abc'.find('x')")).toBe('');
    expect(cel("'abcd'.find('b|bc')")).toBe('b');
  });

  it('findAll skips an empty match right after a match, as Go FindAllString', () => {
    expect(cel("'baaac'.findAll('a*')")).toEqual(['', 'aaa', '']);
    expect(cel("'abc'.findAll('')")).toEqual(['', '', '', '']);
    expect(cel("'a😀b'.findAll('')")).toEqual(['', '', '', '']);
    expect(cel("'1 2 3'.findAll('[0-9]', 2)")).toEqual(['1', '2']);
    expect(cel("'1 2 3'.findAll('[0-9]', 0)")).toEqual([]);
    expect(cel("'1 2 3'.findAll('[0-9]', -5)")).toEqual(['1', '2', '3']);
  });

  it('reports invalid dynamic regexes with the Kubernetes and cel-go texts', () => {
    expect(celError('s.find(r)', { s: 'x', r: ')' })).toBe('Illegal regex: error parsing regexp: unexpected ): `)`');
    expect(celError('s.findAll(r)', { s: 'x', r: '(' })).toBe(
      'Illegal regex: error parsing regexp: missing closing ): `(`',
    );
    expect(celError('s.matches(r)', { s: 'x', r: 'x++' })).toBe(
      'error parsing regexp: invalid nested repetition operator: `++`',
    );
  });

  it('rejects what RE2 rejects: lookarounds, backreferences, huge repeats', () => {
    expect(validateRegexLiteral('(?=a)')).toMatch(/^error parsing regexp: /);
    expect(validateRegexLiteral('(a)\\1')).toBe('error parsing regexp: invalid escape sequence: `\\1`');
    expect(validateRegexLiteral('a{1001}')).toBe('error parsing regexp: invalid repeat count: `{1001}`');
    expect(validateRegexLiteral('^[a-z]+$')).toBeUndefined();
  });

  // cel-go's ValidateRegexLiterals (cel/validator.go: argNum 0 of the call's arguments after the receiver)
  // reports 'invalid matches argument'; otherwise program creation compiles every constant pattern
  // (interpreter/optimizations.go MatchesRegexOptimization, Kubernetes' find/findAll ones: RegexIndex 1)
  // and kube-apiserver reports the first failure bare (admission/plugin/cel/compile.go).
  it('gives compile errors for constant invalid regex arguments, as kube-apiserver does', () => {
    const compiled = libraryEnv(['r', 's']).compile("s.matches('(') || s.find('[0-9]+') == '' || matches(s, 'x**') || s.findAll(r) == [] || s.findAll(')', 1) == []");
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.message.split('\n').filter((l) => l.startsWith('ERROR:'))).toEqual(['ERROR: <input>:1:11: invalid matches argument']);
    const planned = (expr: string) => compileExpression(expr, 'variable', { params: false });
    expect(planned("'x'.find('(')")).toEqual({ ok: false, message: 'program instantiation failed: error parsing regexp: missing closing ): `(`' });
    expect(planned("'x'.findAll(dyn(')'), 1)")).toEqual({ ok: false, message: 'program instantiation failed: error parsing regexp: unexpected ): `)`' });
    expect(planned("matches('x', 'x**')")).toEqual({
      ok: false,
      message: 'program instantiation failed: error parsing regexp: invalid nested repetition operator: `**`',
    });
    // The global form's literal check reads its first argument, the input.
    expect(planned("matches('a(', 'b')")).toMatchObject({ ok: false, message: expect.stringContaining('ERROR: <input>:1:9: invalid matches argument') });
    // The result type is checked before the program is created.
    expect(compileExpression("'x'.find('(')", 'matchCondition', { params: false })).toEqual({ ok: false, message: 'must evaluate to bool but got string' });
  });
});

describe('RegExp fast path', () => {
  // Each pattern is checked against RE2 on inputs chosen to hit its edges.
  const patterns: [string, string[]][] = [
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', ['my-name', '-bad', 'bad-', 'a', '', 'a--b', 'UPPER']],
    ['^registry\\.example\\.com/', ['registry.example.com/x', 'registryXexample.com/', 'x.registry.example.com/']],
    ['[0-9]+', ['abc 123 def 45', 'none', '007']],
    ['(?i)^NGINX:[0-9.]+$', ['nginx:1.25', 'NGINX:1', 'Nginx:', 'nginx:1.2x']],
    ['^.*:latest$', ['a:latest', 'a:latest\n', ':latest', 'latest']],
    ['a.c', ['abc', 'a\nc', 'a\rc', 'a😀c']],
    ['\\bword\\b', ['a word here', 'awordy', 'word']],
    ['^(foo|foobar)$', ['foo', 'foobar', 'foob']],
    ['^\\d{3}-\\w{2,4}\\s?$', ['123-ab', '123-abcd ', '12-ab', '123-abcde']],
    ['[^a-c]x', ['ax', 'dx', '\nx']],
    ['é+', ['ééé', 'e']],
    ['^(ab)?c*d{2}$', ['abdd', 'ccdd', 'abcdd', 'abd']],
    ['x*?y', ['xxy', 'y', 'xx']],
    ['[\\]a-]', [']', 'a', '-', 'b']],
  ];

  for (const [pattern, inputs] of patterns) {
    it(`${pattern} agrees with RE2`, () => {
      expect(translateRe2(pattern)).toBeDefined();
      const re2 = RE2JS.compile(pattern);
      const compiled = compileRe2(pattern);
      for (const input of inputs) {
        expect(compiled.usesFastPath(input)).toBe(true);
        const m = re2.matcher(input);
        const want = m.find() ? m.group() : '';
        expect(compiled.test(input), `${pattern} test ${JSON.stringify(input)}`).toBe(re2.test(input));
        expect(compiled.find(input), `${pattern} find ${JSON.stringify(input)}`).toBe(want);
      }
    });
  }

  it('is not used for constructs outside its subset', () => {
    for (const p of ['(a+)+', '(ab)*', '\\pL', '[[:alpha:]]', '(?s).', '(?U)a+', 'a{2}{3}', '\\Qa\\E', '(?i)\\b']) {
      expect(translateRe2(p), p).toBeUndefined();
    }
  });

  it('bounds the backtracking work by input length', () => {
    const anchored = translateRe2('^[a-z]+$')!;
    const unanchored = translateRe2('[a-z]+x')!;
    expect(anchored.bound(1000)).toBeLessThan(unanchored.bound(1000));
    expect(unanchored.bound(10_000)).toBeGreaterThan(1e8);
  });
});
