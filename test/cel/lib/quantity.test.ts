import { describe, expect, it } from 'vitest';
import { formatCelValue, type CelValue } from '../../../src/cel/index.js';
import { ERR_FORMAT_WRONG, ERR_SUFFIX } from '../../../src/cel/lib/quantity-value.js';
import { cel, celError } from './env.js';

const q = (expr: string) => cel(expr);

/** A quantity's text as `amender eval` prints it. */
function text(expr: string): string {
  return (JSON.parse(formatCelValue(cel(expr) as CelValue)) as Record<string, string>)['$kubernetes.Quantity'];
}

describe('Quantity', () => {
  it('parses every suffix family', () => {
    expect(q('quantity("1Ki").asInteger()')).toBe(1024n);
    expect(q('quantity("1Mi").asInteger()')).toBe(1048576n);
    expect(q('quantity("2k").asInteger()')).toBe(2000n);
    expect(q('quantity("1e3").asInteger()')).toBe(1000n);
    expect(q('quantity("1E3").asInteger()')).toBe(1000n);
    expect(q('quantity("500m").asApproximateFloat()')).toBe(0.5);
    expect(q('quantity("+1").asInteger()')).toBe(1n);
    expect(q('quantity("-1").asInteger()')).toBe(-1n);
    expect(q('quantity(".").asInteger()')).toBe(0n);
    expect(q('quantity("1.").asInteger()')).toBe(1n);
  });

  it('prints the canonical form, as apimachinery Quantity.String()', () => {
    const cases: [string, string][] = [
      ['1024Mi', '1Gi'],
      ['1.5Gi', '1536Mi'],
      ['0.5Gi', '512Mi'],
      ['1.1Ki', '1126400m'], // not a whole number of bytes: DecimalSI
      ['1000', '1k'],
      ['1.5', '1500m'],
      ['0.1m', '100u'],
      ['1000e0', '1e3'],
      ['1.5e3', '1500'],
      ['12e-1', '1200e-3'], // DecimalExponent stays in exponent form
      ['0.000000001', '1n'],
      ['1.0000000001', '1000000001n'], // rounded up to nanos
      ['-1.5Gi', '-1536Mi'],
      ['0Gi', '0'],
    ];
    for (const [input, want] of cases) expect(text(`quantity("${input}")`), input).toBe(want);
  });

  it('keeps the text it was parsed from when that is already canonical (apimachinery caches it)', () => {
    for (const input of ['1Gi', '100m', '1e3', '1E3', '+1k', '-1Ki', '0']) expect(text(`quantity("${input}")`)).toBe(input);
  });

  it('prints results of arithmetic canonically, in the left operand\'s format', () => {
    expect(text('quantity("1Gi").add(quantity("512Mi"))')).toBe('1536Mi');
    expect(text('quantity("1").add(1)')).toBe('2');
    expect(text('quantity("1k").sub(quantity("1"))')).toBe('999');
    expect(text('quantity("0").add(quantity("2Ki"))')).toBe('2Ki');
  });

  it('rejects malformed quantities with the apimachinery messages', () => {
    expect(celError('quantity("")')).toBe(ERR_FORMAT_WRONG);
    expect(celError('quantity("1 ")')).toBe(ERR_FORMAT_WRONG);
    expect(celError('quantity("1.2.3")')).toBe(ERR_FORMAT_WRONG);
    expect(celError('quantity("1e")')).toBe(ERR_SUFFIX);
    expect(celError('quantity("1K")')).toBe(ERR_SUFFIX);
    expect(celError('quantity("1Ki1")')).toBe(ERR_SUFFIX);
    expect(q('isQuantity("1,5")')).toBe(false);
  });

  it('compares values, not spellings', () => {
    expect(q('quantity("1Ki") == quantity("1024")')).toBe(true);
    expect(q('quantity("1") == quantity("1000m")')).toBe(true);
    expect(q('quantity("1") != quantity("1001m")')).toBe(true);
    expect(q('[quantity("2"), quantity("1500m")].map(x, x.compareTo(quantity("1.5")))')).toEqual([1n, 0n]);
    expect(q('quantity("1e100").isGreaterThan(quantity("9999999999999999999999"))')).toBe(true);
    expect(q('quantity("-1e100").isLessThan(quantity("-1"))')).toBe(true);
  });

  it('an add()/sub() result is a Go *Quantity, which Quantity.Equal refuses on its right (library/quantity.go)', () => {
    // Kubernetes' add and sub return &apiservercel.Quantity{}; Quantity.Equal asserts other.(Quantity).
    expect(q('quantity("1").add(1) == quantity("2")')).toBe(true);
    expect(q('quantity("3").sub(quantity("1")) == quantity("2")')).toBe(true);
    expect(celError('quantity("2") == quantity("1").add(1)')).toBe('no such overload');
    expect(celError('quantity("1").add(1) == quantity("1").add(1)')).toBe('no such overload');
    expect(q('quantity("2") != quantity("3").sub(1)')).toBe(true);
    // Membership asks the element looked for (baseList.Contains: elem.Equal(val)); indexOf/includes the
    // list's element (Kubernetes' lists.go); distinct the new element (cel-go ext/lists.go distinctList).
    expect(q('quantity("2") in [quantity("1").add(1)]')).toBe(false);
    expect(q('quantity("1").add(1) in [quantity("2")]')).toBe(true);
    expect(q('[quantity("2")].indexOf(quantity("1").add(1))')).toBe(-1n);
    expect(q('sets.contains([quantity("2")], [quantity("1").add(1)])')).toBe(true);
    expect(q('sets.contains([quantity("1").add(1)], [quantity("2")])')).toBe(false);
    expect(q('sets.intersects([quantity("2")], [quantity("1").add(1)])')).toBe(false);
    expect(q('[quantity("1").add(1), quantity("2")].distinct().size()')).toBe(2n);
    expect(q('[quantity("2"), quantity("1").add(1)].distinct().size()')).toBe(1n);
    // Ordering reads the *resource.Quantity of either form.
    expect(q('quantity("2").compareTo(quantity("1").add(1))')).toBe(0n);
  });

  it('rounds below a nano up, away from zero', () => {
    expect(q('quantity("0.1n") == quantity("1n")')).toBe(true);
    expect(q('quantity("-0.1n") == quantity("-1n")')).toBe(true);
    expect(q('quantity("1.0000000001") == quantity("1.000000001")')).toBe(true);
  });

  it('isInteger reflects the internal form, as in Go', () => {
    expect(q('quantity("1.5Gi").isInteger()')).toBe(false); // an exact integer, but parsed as a decimal
    expect(q('quantity("1.0").isInteger()')).toBe(false); // scale -1
    expect(q('quantity("922337203685477580").isInteger()')).toBe(true); // 18 digits: int64 form
    expect(q('quantity("9223372036854775807").isInteger()')).toBe(false); // 19 digits: decimal form
    expect(celError('quantity("0.5").asInteger()')).toBe('cannot convert value to integer');
  });

  it('caps binary-SI values at 2^63-1', () => {
    expect(q('quantity("8Ei") == quantity("9223372036854775807")')).toBe(true);
    expect(q('quantity("8E") == quantity("8000000000000000000")')).toBe(true);
  });

  it('adds and subtracts exactly, moving to the decimal form on int64 overflow', () => {
    // 10E + 1 does not fit an int64 at scale 0: the result is exact, in the decimal form
    expect(q('quantity("9E").add(quantity("1E")).add(1) == quantity("10000000000000000001")')).toBe(true);
    expect(q('quantity("9E").add(quantity("1E")).add(1).isInteger()')).toBe(false);
    expect(q('quantity("9E").add(1).isInteger()')).toBe(true);
    expect(q('quantity("9E").add(1).asInteger()')).toBe(9000000000000000001n);
    expect(q('quantity("1.5").sub(quantity("500m")) == quantity("1")')).toBe(true);
    expect(q('sign(quantity("1Mi").sub(1048576))')).toBe(0n);
    expect(q('sign(quantity("-1m"))')).toBe(-1n);
    expect(celError('quantity("1").sign()')).toMatch(/found no matching overload/); // sign is global only
  });

  it('asApproximateFloat multiplies the mantissa by a Go-style power of ten', () => {
    expect(q('quantity("1.5").asApproximateFloat()')).toBe(1.5);
    expect(q('quantity("1e300").asApproximateFloat()')).toBe(1e300);
    expect(q('quantity("1e400").asApproximateFloat()')).toBe(Infinity);
    // decimal form: mantissa rescaled to 10^-9, then float(mantissa) * Pow10(-9) (= 1 / 1e9 in Go)
    expect(q('quantity("12345678901234567890").asApproximateFloat()')).toBe(Number(12345678901234567890n * 10n ** 9n) * (1 / 1e9));
  });

  it('handles enormous exponents without materialising them', () => {
    expect(q('quantity("1e2000000000").compareTo(quantity("1"))')).toBe(1n);
    expect(q('quantity("1e-2000000000").compareTo(quantity("0"))')).toBe(1n);
    expect(celError('quantity("1e2000000000").add(quantity("1"))')).toBe('quantity is too large to compute exactly');
  });

  it('computes exact sums up to 10^1000, the limit Kyverno shares (it used to write out 10^100000)', () => {
    expect(q(`quantity("1e1000").add(1) == quantity("1${'0'.repeat(999)}1")`)).toBe(true);
    expect(celError('quantity("1e1001").add(1)')).toBe('quantity is too large to compute exactly');
    expect(celError('quantity("1e5000").sub(quantity("1"))')).toBe('quantity is too large to compute exactly');
    expect(q('quantity("1e5000").add(quantity("0")).isGreaterThan(quantity("1e4999"))')).toBe(true); // int64 Add of a zero
  });

  it('subtracts the most negative int64 exactly, as apimachinery now does (the negation used to wrap)', () => {
    const minInt64 = 'quantity("-9E").sub(quantity("223372036854775808"))';
    expect(q(`${minInt64}.asInteger()`)).toBe(-(1n << 63n));
    expect(q(`quantity("1").sub(${minInt64}) == quantity("9223372036854775809")`)).toBe(true);
    expect(q(`quantity("1").sub(${minInt64}).isInteger()`)).toBe(false);
  });
});
