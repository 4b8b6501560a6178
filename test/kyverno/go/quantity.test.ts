/**
 * Kubernetes quantities (src/kyverno/go/quantity.ts), one implementation for preconditions, validate
 * patterns and JMESPath arithmetic. The engine's former copy kept exact rationals from a regular
 * expression; the JMESPath one ported resource.ParseQuantity but capped every large value. Which is
 * right comes from k8s.io/apimachinery/pkg/api/resource/quantity.go: values are rounded up to nano
 * units, only BinarySI values are capped at 2^63-1, an `e` exponent is an int32 (it wraps), and `.`,
 * `+`, `-` alone read as zero.
 */
import { describe, expect, it } from 'vitest';
import { compareQuantities, formatQuantity, parseQuantity, tryParseQuantity } from '../../../src/kyverno/go/quantity.js';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';
import { evaluateOperator } from '../../../src/kyverno/operators.js';
import { valueMatches } from '../../../src/kyverno/pattern.js';

const canonical = (text: string) => formatQuantity(parseQuantity(text));
const add = (a: string, b: string) => evaluate(`add('${a}', '${b}')`, {});

describe('parse and String()', () => {
  const cases: [string, string][] = [
    ['0', '0'],
    ['100m', '100m'],
    ['0.1', '100m'],
    ['1.5Gi', '1536Mi'],
    ['1024Mi', '1Gi'],
    ['1e3', '1e3'],
    ['1E', '1E'],
    ['+5k', '5k'],
    ['12345678901234567890', '12345678901234567890'],
    ['0.0000000001', '1n'], // rounded up to the nano unit
    ['-0.0000000001', '-1n'],
    ['.', '0'],
    ['+', '0'],
  ];
  for (const [text, printed] of cases) {
    it(`${text} → ${printed}`, () => expect(canonical(text)).toBe(printed));
  }
  it("reports k8s's messages", () => {
    expect(() => parseQuantity('')).toThrow("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(() => parseQuantity('1x')).toThrow('quantities must match the regular expression');
    expect(() => parseQuantity('1K')).toThrow("unable to parse quantity's suffix");
    expect(tryParseQuantity('1K')).toBeUndefined();
  });
  it('compares exactly', () => {
    expect(compareQuantities(parseQuantity('1Gi'), parseQuantity('1073741824'))).toBe(0);
    expect(compareQuantities(parseQuantity('999m'), parseQuantity('1'))).toBe(-1);
    expect(compareQuantities(parseQuantity('1e-9'), parseQuantity('1n'))).toBe(0);
  });
});

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
  it('exponents beyond ±1000 are refused rather than computed digit by digit', () => {
    expect(add('1e1000', '0')).toEqual({ ok: true, value: '10e999' });
    expect(add('1e1001', '0')).toMatchObject({ ok: false });
    expect(add('1e2000000000', '1')).toMatchObject({ ok: false, error: { message: "JMESPath function 'add': invalid operands" } });
    expect(evaluateOperator('equals', '1e1001', '1e1001')).toBe(true); // not quantities: a wildcard match
    expect(evaluateOperator('lessthan', '1e1001', '1e1002')).toBe(false);
  });
});
