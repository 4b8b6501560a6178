/**
 * Where an expression (or a name) must start and the token read cannot start one, cel-go reports what
 * ANTLR reports under its grammar (parser/gen/CEL.g4): 'mismatched input' with the set of tokens the
 * grammar state takes, in token-type order, or 'extraneous input' when the token after could start it
 * (ANTLR drops the token and goes on). After a bare '.', cel-go's member rule finds no viable
 * alternative. Only the first error is compared: cel-go's recovery adds more after it.
 *
 * Vectors marked parser_test.go are cel-go's (first line of E); the others were read from ANTLR's
 * runtime interpreting the ATN cel-go generated (parser/gen/CEL.interp).
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironment, compileExpression } from '../../src/cel/index.js';

const env = new CelEnvironment();
function first(expr: string): string {
  const c = env.compile(expr, { check: false });
  return c.ok ? 'ok' : c.message.split('\n')[0];
}

const EXPR = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

describe('an expression that cannot start (ANTLR expected-token sets)', () => {
  const cases: [string, string][] = [
    // parser_test.go
    ['?', `ERROR: <input>:1:1: Syntax error: mismatched input '?' expecting ${EXPR}`],
    ['1 + +', `ERROR: <input>:1:5: Syntax error: mismatched input '+' expecting ${EXPR}`],
    ['in', `ERROR: <input>:1:1: Syntax error: mismatched input 'in' expecting ${EXPR}`],
    ['a ? b ((?))', `ERROR: <input>:1:9: Syntax error: mismatched input '?' expecting ${EXPR}`],
    [
      '{',
      "ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
    ],
    [
      '{:a}',
      "ERROR: <input>:1:2: Syntax error: extraneous input ':' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
    ],
    ['x{.', "ERROR: <input>:1:3: Syntax error: mismatched input '.' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}"],
    ['func{{a}}', "ERROR: <input>:1:6: Syntax error: extraneous input '{' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}"],
    ['{"a": 1}."a"', `ERROR: <input>:1:10: Syntax error: no viable alternative at input '."a"'`],
    // ANTLR's runtime on cel-go's ATN
    ['object.spec.replicas >', `ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>' expecting ${EXPR}`],
    ['1 + * 2', `ERROR: <input>:1:5: Syntax error: extraneous input '*' expecting ${EXPR}`],
    ['a ? b :', `ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting ${EXPR}`],
    ['(', `ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting ${EXPR}`],
    ['[?', `ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting ${EXPR}`],
    [
      '[',
      "ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
    ],
    [
      '[:1]',
      "ERROR: <input>:1:2: Syntax error: extraneous input ':' expecting {'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
    ],
    [
      'a.b(',
      "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
    ],
    [
      'f(:',
      "ERROR: <input>:1:3: Syntax error: mismatched input ':' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
    ],
    ['Msg{', "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}"],
    ['Msg{?', "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {IDENTIFIER, ESC_IDENTIFIER}"],
    ['a.?', "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {IDENTIFIER, ESC_IDENTIFIER}"],
  ];
  it.each(cases)('%s', (expr, want) => expect(first(expr)).toBe(want));
});

describe('a select without a name (no viable alternative)', () => {
  const cases: [string, string][] = [
    ['x.y.', "ERROR: <input>:1:5: Syntax error: no viable alternative at input '.'"],
    ['x.y. ', "ERROR: <input>:1:6: Syntax error: no viable alternative at input '. '"],
    ['a.in', "ERROR: <input>:1:3: Syntax error: no viable alternative at input '.in'"],
    ['a. 1', "ERROR: <input>:1:4: Syntax error: no viable alternative at input '. 1'"],
    // cel-go rewrites this one for true, false and null (parser.go reservedIdentifier).
    ['a.true', "ERROR: <input>:1:3: Syntax error: mismatched input 'true' expecting IDENTIFIER"],
    // A leading '.' without a name.
    ['.', "ERROR: <input>:1:2: Syntax error: no viable alternative at input '.'"],
    ['.?y', "ERROR: <input>:1:2: Syntax error: no viable alternative at input '.?'"],
    ['. 1', "ERROR: <input>:1:3: Syntax error: no viable alternative at input '. 1'"],
  ];
  it.each(cases)('%s', (expr, want) => expect(first(expr)).toBe(want));

  it('reads the same through the admission compiler', () => {
    const c = compileExpression('object.metadata.', 'variable', { params: false });
    expect(c.ok ? 'ok' : c.message.split('\n')[0]).toBe("compilation failed: ERROR: <input>:1:17: Syntax error: no viable alternative at input '.'");
  });
});

/**
 * A token that must be matched and is not (ANTLR's recoverInline): 'extraneous input' when the token
 * after it is the one expected, 'missing' when the token read may follow the expected one (what the
 * construct around takes after it, an operator, or the end of input at the top), else 'mismatched'.
 * After an element of a list, an entry of a map or a field of a message the grammar reads ','? and
 * the closer, both named and nothing inserted.
 */
describe('a token that must be matched (ANTLR single-token deletion and insertion)', () => {
  const cases: [string, string][] = [
    // cel-go policy/helper_test.go, k8s.io/apiserver validation_test.go
    ['size(x) == 0)', "ERROR: <input>:1:13: Syntax error: extraneous input ')' expecting <EOF>"],
    ["{'a': 1, 'b' 2}", "ERROR: <input>:1:14: Syntax error: missing ':' at '2'"],
    ["{'a': 1 2}", "ERROR: <input>:1:9: Syntax error: extraneous input '2' expecting {'}', ','}"],
    ["{'a': 1 'b': 2}", "ERROR: <input>:1:9: Syntax error: mismatched input ''b'' expecting {'}', ','}"],
    ['f(a b)', "ERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting ')'"],
    ['f(a b c)', "ERROR: <input>:1:5: Syntax error: mismatched input 'b' expecting ')'"],
    // ANTLR's runtime on cel-go's ATN
    ['0X10', "ERROR: <input>:1:2: Syntax error: extraneous input 'X10' expecting <EOF>"],
    ['a b c', "ERROR: <input>:1:3: Syntax error: mismatched input 'b' expecting <EOF>"],
    ['a ? b c', "ERROR: <input>:1:7: Syntax error: missing ':' at 'c'"],
    ["{'a',: 1}", "ERROR: <input>:1:5: Syntax error: extraneous input ',' expecting ':'"],
    ['[1 2]', "ERROR: <input>:1:4: Syntax error: extraneous input '2' expecting {']', ','}"],
    ['[1, 2', "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}"],
    ["{'a': 1", "ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'}', ','}"],
    ['Msg{a: 1', "ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'}', ','}"],
    ['Msg{a: 1, 2}', "ERROR: <input>:1:11: Syntax error: extraneous input '2' expecting '}'"],
    ['a in [1,', "ERROR: <input>:1:9: Syntax error: missing ']' at '<EOF>'"],
    ['a in [1, &&2]', "ERROR: <input>:1:10: Syntax error: missing ']' at '&&'"],
    ['a in [1,, 2]', "ERROR: <input>:1:9: Syntax error: mismatched input ',' expecting ']'"],
    ['(a', "ERROR: <input>:1:3: Syntax error: missing ')' at '<EOF>'"],
    ['a ? (b', "ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting ')'"],
    ['[(a ]', "ERROR: <input>:1:5: Syntax error: missing ')' at ']'"],
    ['f((a ]', "ERROR: <input>:1:6: Syntax error: mismatched input ']' expecting ')'"],
    ['x.map((k, v, k + v)', "ERROR: <input>:1:9: Syntax error: missing ')' at ','"],
    ["{?'k': (v}", "ERROR: <input>:1:10: Syntax error: missing ')' at '}'"],
    ['{(a ,', "ERROR: <input>:1:5: Syntax error: mismatched input ',' expecting ')'"],
    // A leading comma is the lone comma of an empty literal ('[' listInit? ','? ']'): the closer must follow.
    ['[, 2, 3]', "ERROR: <input>:1:4: Syntax error: mismatched input '2' expecting ']'"],
    ['a in [, 2]', "ERROR: <input>:1:9: Syntax error: extraneous input '2' expecting ']'"],
    ["{, 'a': 1}", "ERROR: <input>:1:4: Syntax error: mismatched input ''a'' expecting '}'"],
    ['Msg{, a: 1}', "ERROR: <input>:1:7: Syntax error: mismatched input 'a' expecting '}'"],
    ['[,', "ERROR: <input>:1:3: Syntax error: missing ']' at '<EOF>'"],
  ];
  it.each(cases)('%s', (expr, want) => expect(first(expr)).toBe(want));
});

/**
 * A '-' that neither signs a number nor negates an operand: cel-go's literal rule takes a sign, so the
 * unary rule predicts past the last '-' and finds no viable alternative there.
 */
describe('a minus without an operand (no viable alternative)', () => {
  const cases: [string, string][] = [
    // parser_test.go
    ['--', "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-'"],
    // ANTLR's runtime on cel-go's ATN
    ['-', "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-'"],
    ['a + -', "ERROR: <input>:1:6: Syntax error: no viable alternative at input '-'"],
    ['-- -', "ERROR: <input>:1:5: Syntax error: no viable alternative at input '-'"],
    ['- <', "ERROR: <input>:1:3: Syntax error: no viable alternative at input '- <'"],
    ['-!a', "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-!'"],
    ['f(-)', "ERROR: <input>:1:4: Syntax error: no viable alternative at input '-)'"],
  ];
  it.each(cases)('%s', (expr, want) => expect(first(expr)).toBe(want));
  it.each(['-1', '- 1', '--1', '-(1)', '-x', "a + -'s'", '-.a', '-.1'])('%s still parses', (expr) => expect(first(expr)).toBe('ok'));
});

/**
 * ANTLR's lexer reports what no rule takes and skips it; cel-go's parser reads the tokens left, and
 * the errors of both are printed sorted by position. We report every lexer error and the parser's
 * first (cel-go's recovery may add more after it).
 */
describe('a lexer error and the parser reading on', () => {
  it("reads as kube-apiserver reports request.user = 'test' (apiserver validation_test.go)", () => {
    const c = compileExpression("request.user = 'test'", 'matchCondition', { params: false });
    expect(c.ok ? 'ok' : c.message).toBe(
      "compilation failed: ERROR: <input>:1:14: Syntax error: token recognition error at: '= '\n | request.user = 'test'\n | .............^\n" +
        "ERROR: <input>:1:16: Syntax error: extraneous input ''test'' expecting <EOF>\n | request.user = 'test'\n | ...............^",
    );
  });
  it('puts a parser error before the lexer error it precedes (parser_test.go *@a | b)', () => {
    const c = env.compile('*@a | b', { check: false });
    const lines = c.ok ? [] : c.message.split('\n').filter((l) => l.startsWith('ERROR'));
    expect(lines.slice(0, 3)).toEqual([
      `ERROR: <input>:1:1: Syntax error: extraneous input '*' expecting ${EXPR}`,
      "ERROR: <input>:1:2: Syntax error: token recognition error at: '@'",
      "ERROR: <input>:1:5: Syntax error: token recognition error at: '| '",
    ]);
  });
  it('reports an escape cel-go cannot unescape at its literal, first', () => {
    expect(first("'\\udead' == x = 1")).toBe('ERROR: <input>:1:1: invalid unicode code point');
  });
});

/**
 * After a run of '!', cel-go's member rule follows: it takes a signed number ('!-1' is !(-1), a type
 * error, not a syntax error) but no other '-'. A token that cannot start it is reported by the '!'
 * loop's sync as unwanted (antlr4-go DefaultErrorStrategy.Sync, PlusLoopBack: ReportUnwantedToken).
 */
describe('the operand of !', () => {
  const cases: [string, string][] = [
    ['!', `ERROR: <input>:1:2: Syntax error: extraneous input '<EOF>' expecting ${EXPR}`],
    ['!)', `ERROR: <input>:1:2: Syntax error: extraneous input ')' expecting ${EXPR}`],
    ['a && !', `ERROR: <input>:1:7: Syntax error: extraneous input '<EOF>' expecting ${EXPR}`],
    ['!-x', "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-x'"],
    ['!-1u', "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-1u'"],
  ];
  it.each(cases)('%s', (expr, want) => expect(first(expr)).toBe(want));
  it.each(['!-1', '!!-1.5', '!-1.5.x'])('%s parses', (expr) => expect(first(expr)).toBe('ok'));
  it('!-1 is a type error, as in cel-go', () => {
    const c = env.compile('!-1', { check: true });
    expect(c.ok ? 'ok' : c.message.split('\n')[0]).toBe("ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'");
  });
});
