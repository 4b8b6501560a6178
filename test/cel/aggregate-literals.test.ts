/**
 * List, map and message literals as cel-go's grammar reads them (parser/gen/CEL.g4 CreateList,
 * CreateStruct, CreateMessage: `'[' listInit? ','? ']'`): a trailing comma is allowed, also alone,
 * so `[,]`, `{,}` and `Object{,}` are empty literals; a comma never leads an element or doubles.
 * And message literals of a name that is no message, as cel-go's checkCreateStruct reports them.
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

describe('message literals of a name that is no message type', () => {
  function message(expr: string): string {
    const c = new CelEnvironment().compile(expr);
    return c.ok ? 'ok' : c.message;
  }

  it('a type identifier that is not a message is named so, each field unresolved', () => {
    expect(message('int{}')).toBe("ERROR: <input>:1:4: 'int' is not a message type\n | int{}\n | ...^");
    expect(message('list{a: 1}')).toBe(
      "ERROR: <input>:1:5: 'list' is not a message type\n | list{a: 1}\n | ....^\n" +
        "ERROR: <input>:1:7: unexpected failed resolution of 'list'\n | list{a: 1}\n | ......^",
    );
  });

  it('an undeclared name ends the check: its field values are not checked', () => {
    expect(message('Nope{a: zzz, b: Other{c: yyy}}')).toBe(
      "ERROR: <input>:1:5: undeclared reference to 'Nope' (in container '')\n | Nope{a: zzz, b: Other{c: yyy}}\n | ....^",
    );
    const c = compileExpression('Object{spec: Object.spec{replicas: zzz}}', 'matchCondition', { params: false });
    expect(c.ok || c.message.match(/ERROR/g)).toEqual(['ERROR']);
  });
});
