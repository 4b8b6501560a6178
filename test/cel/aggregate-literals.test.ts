/**
 * List, map and message literals as cel-go's grammar reads them (parser/gen/CEL.g4 CreateList,
 * CreateStruct, CreateMessage: `'[' listInit? ','? ']'`): a trailing comma is allowed, also alone,
 * so `[,]`, `{,}` and `Object{,}` are empty literals; a comma never leads an element or doubles.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironment, Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression, formatCelValue } from '../../src/cel/index.js';

function admission(expr: string): string {
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) return `error: ${c.message}`;
  const r = new Evaluation({ object: {} }, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c.compiled);
  return r.ok ? formatCelValue(r.value) : `error: ${r.message}`;
}

describe('empty literals with a lone comma', () => {
  const cases: [string, string][] = [
    ['[,]', '[]'],
    ['[ , ]', '[]'],
    ['{,}', '{}'],
    ['size([,]) + size({,})', '0'],
    ['[1,]', '[1]'],
    ["{'a': 1,}", '{"a":1}'],
  ];
  for (const [expr, want] of cases) it(expr, () => expect(admission(expr)).toBe(want));

  it('Object{,} is an empty object', () => {
    const c = compileExpression('Object{,}', 'applyConfiguration', { params: false });
    expect(c.ok).toBe(true);
  });

  it('is typed as an empty literal by the general environment', () => {
    const c = new CelEnvironment().compile('[,]');
    expect(c.ok && c.typeName).toBe('list(dyn)');
  });

  for (const expr of ['[,,]', '[,1]', "{,'a': 1}", '[1,,]', 'size([1],)']) {
    it(`${expr} is a syntax error`, () => expect(admission(expr)).toContain('Syntax error'));
  }
});
