/**
 * Kubernetes quantities in Kyverno (src/kyverno/go/quantity.ts over the shared port in src/k8s,
 * whose own tests are test/k8s/quantity.test.ts): one implementation for preconditions, validate
 * patterns and JMESPath arithmetic. The engine's former copy kept exact rationals from a regular
 * expression; the JMESPath one ported resource.ParseQuantity but capped every large value. Which is
 * right comes from k8s.io/apimachinery/pkg/api/resource/quantity.go: values are rounded up to nano
 * units, only BinarySI values are capped at 2^63-1, an `e` exponent is an int32 (it wraps), and `.`,
 * `+`, `-` alone read as zero. The last block covers what changed when the CEL and Kyverno ports
 * became one, as Kyverno's functions and operators show it.
 */
import { describe, expect, it } from 'vitest';
import { ERR_TOO_LARGE } from '../../../src/k8s/index.js';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';
import { evaluateOperator } from '../../../src/kyverno/match/operators.js';
import { valueMatches } from '../../../src/kyverno/match/pattern.js';

const add = (a: string, b: string) => evaluate(`add('${a}', '${b}')`, {});

describe('where the engine and JMESPath copies disagreed', () => {
  it('values below one nano unit round up (the engine compared them exactly)', () => {
    expect(evaluateOperator('equals', '0.0000000001', '1n')).toBe(true);
    expect(evaluateOperator('greaterthanorequals', '0.0000000001', '1n')).toBe(true);
    expect(valueMatches('0.0000000001', '1n')).toBe(true);
  });
  it('`.` alone is the quantity zero (the engine did not read it)', () => {
    expect(evaluateOperator('equals', '.', '0')).toBe(true);
  });
  it('BinarySI values are capped at 2^63-1 (the engine kept them exact)', () => {
    expect(evaluateOperator('equals', '8Ei', '9223372036854775807')).toBe(true);
    expect(add('16Ei', '0')).toEqual({ ok: true, value: '9223372036854775807' });
  });
  it('DecimalSI and exponent values are not capped (JMESPath capped them)', () => {
    expect(add('10000000000000000000', '0')).toEqual({ ok: true, value: '10E' });
    expect(evaluateOperator('greaterthan', '10000000000000000000', '9223372036854775807')).toBe(true);
  });
  it('the exponent is an int32 as in Go, so 2^32+1 wraps to 1 (JMESPath refused it)', () => {
    expect(add('1e4294967297', '0')).toEqual({ ok: true, value: '10' });
  });
  it('exponents beyond ±1000 are quantities as in apimachinery; only exact results beyond 10^1000 are refused', () => {
    expect(add('1e1000', '0')).toEqual({ ok: true, value: '10e999' });
    expect(add('1e1001', '0')).toEqual({ ok: true, value: '100e999' }); // was refused at parse
    expect(add('1e2000000000', '1')).toMatchObject({ ok: false, error: { message: `JMESPath function 'add': ${ERR_TOO_LARGE}` } });
    expect(evaluate(`subtract('1e999', '1e-999')`, {})).toMatchObject({ ok: false, error: { kind: 'function', message: `JMESPath function 'subtract': ${ERR_TOO_LARGE}` } });
    expect(evaluate(`sum(['1e999', '1e-999'])`, {})).toMatchObject({ ok: false, error: { kind: 'function', message: `JMESPath function 'sum': ${ERR_TOO_LARGE}` } });
    expect(evaluateOperator('equals', '1e1001', '1e1001')).toBe(true);
    expect(evaluateOperator('lessthan', '1e1001', '1e1002')).toBe(true); // was false: not quantities
    expect(evaluateOperator('greaterthan', '1e2000000000', '1e1999999999')).toBe(true);
  });
});

describe('where the CEL and Kyverno ports disagreed, as Kyverno shows it', () => {
  const divide = (a: string, b: string | number) => evaluate(`divide('${a}', ${typeof b === 'number' ? `\`${b}\`` : `'${b}'`})`, {});

  it("quantity ÷ quantity divides AsApproximateFloat64 values, which use Go's math.Pow10", () => {
    expect(divide('1e33', '1')).toEqual({ ok: true, value: 1.0000000000000001e33 }); // was 1e33
    expect(divide('3Gi', '1Gi')).toEqual({ ok: true, value: 3 });
  });

  it('the BinarySI cap has scale 0, the scale quantity ÷ number rounds at', () => {
    expect(divide('16Ei', 3)).toEqual({ ok: true, value: '3074457345618258602' }); // was '3074457345618258602333333333n'
    expect(divide('1.5Gi', 3)).toEqual({ ok: true, value: '512Mi' });
  });

  it('".e-10" is no quantity (inf.Dec reads no digit); it was read as zero', () => {
    expect(evaluateOperator('equals', '.e-10', '0')).toBe(false);
    expect(add('.e-10', '1')).toMatchObject({ ok: false, error: { message: "JMESPath function 'add': invalid operand" } });
    expect(evaluateOperator('equals', '.', '0')).toBe(true);
  });

  it('results are printed canonically even when the parsed text was kept as the String() form', () => {
    expect(add('+5k', '0')).toEqual({ ok: true, value: '5k' });
    expect(add('0', '+1Ki')).toEqual({ ok: true, value: '1Ki' });
  });
});
