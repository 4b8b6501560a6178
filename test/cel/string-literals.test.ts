/**
 * String and bytes literals as cel-go's parser reads them (parser/unescape.go): a line break inside a
 * triple-quoted literal, CRLF or a lone CR, is read as \n before escapes are processed (an escaped \r
 * stays a carriage return), in raw and bytes literals too.
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
