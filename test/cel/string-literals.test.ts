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
