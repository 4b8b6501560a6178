/**
 * String and bytes literals as cel-go's parser reads them (parser/unescape.go): a line break inside a
 * triple-quoted literal, CRLF or a lone CR, is read as \n before escapes are processed (an escaped \r
 * stays a carriage return), in raw and bytes literals too. An escape the grammar takes but unescape
 * refuses is reported as cel-go's parser reports it: the unescape error alone, at the literal.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironment, Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression } from '../../src/cel/index.js';

const env = new CelEnvironment();

function general(expr: string): unknown {
  const c = env.compile(expr, { check: true });
  if (!c.ok) throw new Error(c.message);
  const r = c.program.evaluate();
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

function admission(expr: string): unknown {
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) throw new Error(c.message);
  const r = new Evaluation({ object: {} }, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c.compiled);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe('line breaks in multi-line literals', () => {
  const cases: [string, unknown][] = [
    ["'''a\r\nb'''", 'a\nb'],
    ['"""a\rb"""', 'a\nb'],
    ["'''a\r\r\nb'''", 'a\n\nb'],
    ["r'''a\r\nb\\r'''", 'a\nb\\r'],
    ["'''a\r\n\\tb\\r'''", 'a\n\tb\r'],
    ["b'''a\r\nb'''", new Uint8Array([97, 10, 98])],
    ["br'''a\rb'''", new Uint8Array([97, 10, 98])],
    ["size('''\r\n''')", 1n],
  ];
  for (const [expr, want] of cases) {
    it(JSON.stringify(expr), () => {
      expect(general(expr)).toEqual(want);
      expect(admission(expr)).toEqual(want);
    });
  }
});

describe('escapes the grammar takes but cel-go cannot unescape', () => {
  function message(expr: string): string {
    const c = env.compile(expr);
    return c.ok ? 'ok' : c.message;
  }
  it('a surrogate or out-of-range code point (cel-go parser_test.go)', () => {
    expect(message("'\\udead' == '\\ufffd'")).toBe("ERROR: <input>:1:1: invalid unicode code point\n | '\\udead' == '\\ufffd'\n | ^");
    expect(message("'ok' + '\\U00110000'")).toBe("ERROR: <input>:1:8: invalid unicode code point\n | 'ok' + '\\U00110000'\n | .......^");
  });
  it('a \\u or \\U escape in bytes', () => {
    expect(message("b'\\u00e9'")).toBe("ERROR: <input>:1:1: unable to unescape string\n | b'\\u00e9'\n | ^");
    const k = compileExpression("size(B'\\U0001F600')", 'variable', { params: false });
    expect(k.ok ? 'ok' : k.message).toBe("compilation failed: ERROR: <input>:1:6: unable to unescape string\n | size(B'\\U0001F600')\n | .....^");
  });
});

/**
 * What the grammar refuses is reported as ANTLR's lexer reports it under cel-go's CEL.g4: 'token
 * recognition error at: <text>' at the start of the token it was reading, the text running through the
 * first character no rule takes. A literal that fails falls back to ANTLR's longest match before it: a
 * prefix (b, r, br) is an identifier, the first two quotes of a triple quote an empty literal, and the
 * error is at what follows. Only the first error is compared: cel-go's parser adds its own after it.
 */
describe('literals and tokens the grammar refuses (ANTLR lexer errors)', () => {
  function first(expr: string): string {
    const c = env.compile(expr);
    if (c.ok) return 'ok';
    return c.message.split('\n')[0];
  }
  const cases: [string, string][] = [
    // cel-go parser_test.go vectors (first error of each).
    ['"\\xFh"', `ERROR: <input>:1:1: Syntax error: token recognition error at: '"\\xFh'`],
    ['"\\a\\b\\f\\n\\r\\t\\v\\\'\\"\\\\\\? Illegal escape \\>"', `ERROR: <input>:1:1: Syntax error: token recognition error at: '"\\a\\b\\f\\n\\r\\t\\v\\'\\"\\\\\\? Illegal escape \\>'`],
    ['a | b', "ERROR: <input>:1:3: Syntax error: token recognition error at: '| '"],
    ["'3# < 10\" '& tru ^^", "ERROR: <input>:1:12: Syntax error: token recognition error at: '& '"],
    ['a.`$b`', "ERROR: <input>:1:3: Syntax error: token recognition error at: '`$'"],
    // An escape no ESC_SEQ takes: the text runs through the character that ends it.
    ["'^\\d+$'.size()", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''^\\d'"],
    ["x.matches('\\\\d') || x.matches('\\w')", "ERROR: <input>:1:31: Syntax error: token recognition error at: ''\\w'"],
    ["'\\u12g4'", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\u12g'"],
    ["'\\08'", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\08'"],
    ["'\\4'", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\4'"],
    ["'a\\", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''a\\'"],
    ["'a😀\\😀'", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''a😀\\😀'"],
    // A prefix is an identifier and a triple quote's first two quotes an empty literal; the error follows.
    ["b'\\d'", "ERROR: <input>:1:2: Syntax error: token recognition error at: ''\\d'"],
    ["'''\\d'''", "ERROR: <input>:1:3: Syntax error: token recognition error at: ''\\d'"],
    ["'''abc", "ERROR: <input>:1:3: Syntax error: token recognition error at: ''abc'"],
    ['&', "ERROR: <input>:1:1: Syntax error: token recognition error at: '&'"],
    ['1 = 1', "ERROR: <input>:1:3: Syntax error: token recognition error at: '= '"],
    ['a.`b', "ERROR: <input>:1:3: Syntax error: token recognition error at: '`b'"],
    ['a.``', "ERROR: <input>:1:3: Syntax error: token recognition error at: '``'"],
  ];
  it.each(cases)('%s', (expr, want) => expect(first(expr)).toBe(want));

  it('still reads every escape the grammar takes', () => {
    expect(general("'\\a\\b\\f\\n\\r\\t\\v\\'\\\"\\\\\\?\\`\\x41\\X42\\101\\u00e9\\U0001F600'")).toBe("\x07\b\f\n\r\t\v'\"\\?`ABAé😀");
    expect(general("b'\\xff\\377'")).toEqual(new Uint8Array([255, 255]));
    expect(general("'''a\\'''b'''")).toBe("a'''b");
    expect(general("r'\\d' + R\"\\w\" + string(br'\\s')")).toBe('\\d\\w\\s');
  });
});
