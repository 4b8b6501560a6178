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
