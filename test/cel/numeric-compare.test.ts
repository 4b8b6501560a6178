/**
 * Ints and uints against doubles, as cel-go compares them (and so the API server): a double outside the
 * integer's range decides by its sign, otherwise the integer becomes a double, rounding beyond 2^53.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironment } from '../../src/cel/index.js';

const env = new CelEnvironment({});

function evaluate(expr: string): unknown {
  const compiled = env.compile(expr);
  if (!compiled.ok) throw new Error(compiled.message);
  const result = compiled.program.evaluate({});
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

describe('int and uint against double', () => {
  it.each([
    ['dyn(9223372036854775807) < 9223372036854775808.0', false],
    ['dyn(9223372036854775807) <= 9223372036854775808.0', true],
    ['dyn(9223372036854775807) == 9223372036854775808.0', true],
    ['dyn(9223372036854775808.0) > 9223372036854775807', false],
    ['dyn(9007199254740993) == 9007199254740992.0', true],
    ['dyn(-9223372036854775808) > -1e300', true],
    ['dyn(9223372036854775807) < 1e19', true],
    ['dyn(18446744073709551615u) < 18446744073709551616.0', false],
    ['dyn(18446744073709551615u) >= 18446744073709551616.0', true],
    ['dyn(18446744073709551615u) < 1e20', true],
    ['dyn(0u) > -0.5', true],
    ['dyn(1) < 1.5', true],
    ['dyn(2) > 1.5', true],
    ['dyn(3u) == 3.0', true],
  ])('%s is %s', (expr, expected) => {
    expect(evaluate(expr)).toBe(expected);
  });
});

/**
 * A NaN cannot be ordered: cel-go's Double.Compare, and Int/Uint.Compare against a NaN double, return
 * 'NaN values cannot be ordered' (common/types/double.go, int.go, uint.go), so <, <=, >, >= fail in
 * kube-apiserver instead of answering false. Equality stays false (not an error).
 */
describe('a NaN operand of <, <=, >, >=', () => {
  function failure(expr: string, e: CelEnvironment = env): string {
    const compiled = e.compile(expr);
    if (!compiled.ok) throw new Error(compiled.message);
    const result = compiled.program.evaluate({});
    return result.ok ? `value ${String(result.value)}` : result.message;
  }
  it.each([
    '0.0/0.0 < 1.0',
    '1.0 <= 0.0/0.0',
    "double('NaN') > 0.0",
    'dyn(0.0/0.0) >= 1',
    '1 < dyn(0.0/0.0)',
    '1u > dyn(0.0/0.0)',
    'dyn(0.0/0.0) <= 1u',
  ])('%s fails', (expr) => expect(failure(expr)).toBe('NaN values cannot be ordered'));

  it('equality with a NaN is still false', () => {
    expect(evaluate('0.0/0.0 == 0.0/0.0')).toBe(false);
    expect(evaluate('dyn(1) != 0.0/0.0')).toBe(true);
  });
  it('fails a MAP expression the same way', async () => {
    const { compileExpression, Evaluation, RUNTIME_CEL_COST_BUDGET } = await import('../../src/cel/index.js');
    const c = compileExpression("double(object.metadata.annotations.ratio) < 0.5", 'matchCondition', { params: false });
    if (!c.ok) throw new Error(c.message);
    const r = new Evaluation({ object: { metadata: { annotations: { ratio: 'NaN' } } } }, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c.compiled);
    expect(r).toMatchObject({ ok: false });
    expect((r as { message: string }).message).toContain('NaN values cannot be ordered');
  });
});
