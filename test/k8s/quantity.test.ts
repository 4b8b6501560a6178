/**
 * resource.Quantity (src/k8s), the one port both engines use. Expected values come from
 * k8s.io/apimachinery/pkg/api/resource (quantity.go, amount.go, math.go; the upstream cases of
 * quantity_cmp_overflow_test.go and quantity_subnano_test.go are copied below as data) and
 * gopkg.in/inf.v0. The last block pins each point where the CEL and Kyverno copies used to disagree.
 */
import { describe, expect, it } from 'vitest';
import {
  addQuantities,
  compareQuantities,
  ERR_FORMAT_WRONG,
  ERR_NUMERIC,
  ERR_SUFFIX,
  ERR_TOO_LARGE,
  formatQuantity,
  goPow10,
  int64Quantity,
  MAX_POW10,
  parseQuantity,
  quantityApproximateFloat,
  quantityAsInt64,
  QuantityError,
  quantityParseError,
  quantitySign,
  subQuantities,
  tryParseQuantity,
  type Quantity,
} from '../../src/k8s/index.js';

const q = parseQuantity;
const text = (s: string) => formatQuantity(q(s));
const cmp = (a: string, b: string) => compareQuantities(q(a), q(b));
const add = (a: string, b: string) => addQuantities(q(a), q(b));
const sub = (a: string, b: string) => subQuantities(q(a), q(b));
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

describe('ParseQuantity and String()', () => {
  // [input, String()]: the canonical form, or the input when apimachinery keeps it.
  const cases: [string, string][] = [
    ['0', '0'],
    ['0Gi', '0'],
    ['.', '0'],
    ['+', '0'],
    ['100m', '100m'],
    ['0.1', '100m'],
    ['0.1m', '100u'],
    ['1.5', '1500m'],
    ['1000', '1k'],
    ['1.5Gi', '1536Mi'],
    ['-1.5Gi', '-1536Mi'],
    ['0.5Gi', '512Mi'],
    ['1.1Ki', '1126400m'], // not a whole number of bytes: DecimalSI
    ['1024Mi', '1Gi'],
    ['1e3', '1e3'],
    ['1000e0', '1e3'],
    ['1.5e3', '1500'],
    ['12e-1', '1200e-3'], // DecimalExponent stays in exponent form
    ['1E', '1E'],
    ['12345678901234567890', '12345678901234567890'],
    ['0.000000001', '1n'],
    ['0.0000000001', '1n'], // rounded up to the nano unit
    ['-0.0000000001', '-1n'],
    ['1.0000000001', '1000000001n'],
    ['1e-100', '1e-9'],
    ['0.00000000000000000000001Ki', '1n'], // below 1n: rounded up, and BinarySI turns DecimalSI
    ['1e2147483647', '10e2147483646'],
    ['1e4294967297', '10'], // the exponent is an int32: 2^32+1 wraps to 1
    ['1e9223372036854775807', '100e-3'], // int64 max wraps to -1
  ];
  for (const [input, printed] of cases) it(`${input} → ${printed}`, () => expect(text(input)).toBe(printed));

  it('keeps the text it parsed when that is already canonical (apimachinery caches it)', () => {
    for (const input of ['1Gi', '100m', '1e3', '1E3', '+1k', '+5k', '-1Ki', '0']) expect(text(input)).toBe(input);
  });

  it('drops the kept text once arithmetic changed the value', () => {
    expect(formatQuantity(addQuantities(q('+5k'), q('0')))).toBe('5k');
    expect(formatQuantity(addQuantities(q('0'), q('+5k')))).toBe('5k');
  });

  it("reports apimachinery's messages", () => {
    const errors: [string, string][] = [
      ['', ERR_FORMAT_WRONG],
      ['1x', ERR_FORMAT_WRONG],
      ['1 ', ERR_FORMAT_WRONG],
      ['1.2.3', ERR_FORMAT_WRONG],
      ['1,5', ERR_FORMAT_WRONG],
      ['1K', ERR_SUFFIX],
      ['1e', ERR_SUFFIX],
      ['1Ki1', ERR_SUFFIX],
      ['1e9223372036854775808', ERR_SUFFIX], // the exponent must fit an int64 before it wraps
    ];
    for (const [input, message] of errors) {
      expect(quantityParseError(input), input).toBe(message);
      expect(tryParseQuantity(input), input).toBeUndefined();
      expect(() => q(input), input).toThrow(new QuantityError(message));
    }
    expect(ERR_FORMAT_WRONG).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(quantityParseError('1Gi')).toBeUndefined();
  });

  it('caps BinarySI values at 2^63-1, not the others', () => {
    expect(cmp('8Ei', '9223372036854775807')).toBe(0);
    expect(cmp('16Ei', '9223372036854775807')).toBe(0);
    expect(cmp('8E', '8000000000000000000')).toBe(0);
    expect(cmp('10000000000000000000', '9223372036854775807')).toBe(1);
  });
});

describe('Cmp', () => {
  it('compares values, not spellings', () => {
    expect(cmp('1Gi', '1073741824')).toBe(0);
    expect(cmp('1Ki', '1024')).toBe(0);
    expect(cmp('1', '1000m')).toBe(0);
    expect(cmp('1', '1001m')).toBe(-1);
    expect(cmp('999m', '1')).toBe(-1);
    expect(cmp('1e-9', '1n')).toBe(0);
    expect(cmp('2', '1.5')).toBe(1);
    expect(cmp('1e100', '9999999999999999999999')).toBe(1);
    expect(cmp('-1e100', '-1')).toBe(-1);
    expect(cmp('0.1n', '1n')).toBe(0);
    expect(cmp('-0.1n', '-1n')).toBe(0);
    expect(cmp('1.0000000001', '1.000000001')).toBe(0);
  });

  it('settles far-apart exponents without writing them out (upstream TestCmpLargeScaleDifference)', () => {
    const cases: [string, string, number][] = [
      ['1e2147483647', '1n', 1],
      ['1n', '1e2147483647', -1],
      ['1e2147483647', '500m', 1],
      ['1e2147483647', '1', 1],
      ['-1e2147483647', '1n', -1],
      ['-1e2147483647', '-1n', -1],
      ['1e2147483647', '1e2147483647', 0],
      ['1e2147483647', '1e2147483646', 1],
      ['1e10000000', '1Gi', 1],
      ['1Gi', '1e10000000', -1],
    ];
    for (const [a, b, want] of cases) expect(cmp(a, b), `${a} vs ${b}`).toBe(want);
    // the same magnitude reached through long mantissas and exponents that differ by their length
    expect(cmp(`1${'0'.repeat(60)}`, '1e60')).toBe(0);
    expect(cmp(`1${'0'.repeat(59)}1`, '1e60')).toBe(1);
    expect(cmp(`-${'9'.repeat(60)}`, '-1e60')).toBe(1);
  });

  it('sign', () => {
    expect(quantitySign(q('-1m'))).toBe(-1);
    expect(quantitySign(q('0Ki'))).toBe(0);
    expect(quantitySign(q('1e-2147483647'))).toBe(1);
  });
});

describe('ParseQuantity below one nano (upstream TestParseQuantitySubNanoRoundsUp)', () => {
  const cases: [string, string][] = [
    ['1e-2147483647', '1n'],
    ['-1e-2147483647', '-1n'],
    ['1.5e-2147483647', '1n'],
    ['-1.5e-2147483647', '-1n'],
    ['0.5e-2147483647', '1n'],
    ['0.1e-2147483647', '1n'],
    ['-0.1e-2147483647', '-1n'],
    ['1e-100', '1n'],
    ['-1e-100', '-1n'],
    ['1e-10', '1n'],
    ['9e-10', '1n'],
    ['-9e-10', '-1n'],
    ['1e-9', '1n'],
    ['-1e-9', '-1n'],
    ['2e-9', '2n'],
    ['15e-10', '2n'],
    ['1000000000000000000000e-30', '1n'],
    ['1000000000000000000001e-30', '2n'],
    ['999999999999999999999e-30', '1n'],
    ['0e-2147483647', '0'],
    ['0.0e-100', '0'],
    ['0.0e-2147483647', '0'],
    ['-0.0e-2147483647', '0'],
    ['0.00000000000000000000001Ki', '1n'],
  ];
  for (const [input, want] of cases) it(`${input} = ${want}`, () => expect(cmp(input, want)).toBe(0));
  it('lands on the representation the rounding path gives', () => {
    for (const [shortcut, roundPath] of [
      ['1e-100', '9e-10'],
      ['-1e-2147483647', '-9e-10'],
      ['0.0000000000001', '0.0000000009'],
    ]) {
      expect(q(shortcut)).toEqual(q(roundPath));
    }
    const printed: [string, string, string][] = [
      ['1e-100', '1e-9', 'DecimalExponent'],
      ['0.0000000000001', '1n', 'DecimalSI'],
      ['-0.0000000000001', '-1n', 'DecimalSI'],
      ['0.00000000000000000000001Ki', '1n', 'DecimalSI'],
      ['1.5e-2147483647', '1e-9', 'DecimalExponent'],
      ['-0.1e-2147483647', '-1e-9', 'DecimalExponent'],
      ['0.0e-2147483647', '0', 'DecimalExponent'],
      ['-0.0e-2147483647', '0', 'DecimalExponent'],
    ];
    for (const [input, want, format] of printed) expect([text(input), q(input).format], input).toEqual([want, format]);
  });
});

describe('the int64 form and the decimal form', () => {
  it('AsInt64 converts only the int64 form at a non-negative exponent', () => {
    const cases: [string, bigint | undefined][] = [
      ['1Ki', 1024n],
      ['1Mi', 1048576n],
      ['2k', 2000n],
      ['1e3', 1000n],
      ['1E3', 1000n],
      ['+1', 1n],
      ['-1', -1n],
      ['.', 0n],
      ['1.', 1n],
      ['1e18', 10n ** 18n],
      ['922337203685477580', 922337203685477580n], // 18 digits: int64 form
      ['1e19', undefined], // int64 form, but 10^19 overflows
      ['9223372036854775807', undefined], // 19 digits: decimal form
      ['1.5Gi', undefined], // an exact integer, but parsed as a decimal
      ['1.0', undefined], // exponent -1
      ['0.5', undefined],
      ['500m', undefined],
    ];
    for (const [input, want] of cases) expect(quantityAsInt64(q(input)), input).toBe(want);
  });

  it('Add stays in int64 while the sum fits, at the smaller exponent', () => {
    const x = add('9E', '1');
    expect(x).toMatchObject({ unscaled: 9000000000000000001n, scale: 0, decimal: false });
    expect(quantityAsInt64(x)).toBe(9000000000000000001n);
    const y = addQuantities(add('9E', '1E'), int64Quantity(1n));
    expect(y.decimal).toBe(true); // 10E + 1 leaves int64: exact, in the decimal form
    expect(compareQuantities(y, q('10000000000000000001'))).toBe(0);
    expect(quantityAsInt64(y)).toBeUndefined();
  });

  it('Add and Sub take the left format unless the left operand is zero', () => {
    expect(formatQuantity(add('1Gi', '512Mi'))).toBe('1536Mi');
    expect(formatQuantity(addQuantities(q('1'), int64Quantity(1n)))).toBe('2');
    expect(formatQuantity(sub('1k', '1'))).toBe('999');
    expect(formatQuantity(add('0', '2Ki'))).toBe('2Ki');
    expect(formatQuantity(sub('0', '2Ki'))).toBe('-2Ki');
    expect(formatQuantity(add('1.5', '1Ki'))).toBe('1025500m'); // DecimalSI from the left
    expect(compareQuantities(sub('1.5', '500m'), q('1'))).toBe(0);
    expect(compareQuantities(subQuantities(q('1Mi'), int64Quantity(1048576n)), q('0'))).toBe(0);
  });

  it('AsApproximateFloat64 multiplies the form’s own unscaled value by math.Pow10', () => {
    expect(quantityApproximateFloat(q('500m'))).toBe(0.5);
    expect(quantityApproximateFloat(q('1.5'))).toBe(1.5);
    expect(quantityApproximateFloat(q('1e300'))).toBe(1e300);
    expect(quantityApproximateFloat(q('1e400'))).toBe(Infinity);
    expect(quantityApproximateFloat(q('0e400'))).toBeNaN(); // Go: 0 * Pow10(400) = 0 * +Inf
    // decimal form: the unscaled value at 10^-9, times Pow10(-9) (= 1 / 1e9 in Go)
    expect(quantityApproximateFloat(q('12345678901234567890'))).toBe(Number(12345678901234567890n * 10n ** 9n) * (1 / 1e9));
    expect(goPow10(-9)).toBe(1 / 1e9);
    expect(goPow10(309)).toBe(Infinity);
    expect(goPow10(-324)).toBe(0);
  });
});

describe('exponents: every int32 exponent parses; only exact results beyond 10^MAX_POW10 are refused', () => {
  it('parses, compares and prints any exponent at the cost of its text', () => {
    expect(MAX_POW10).toBe(1000);
    expect(text('1e2000000000')).toBe('100e1999999998');
    expect(text('-1e-2147483647')).toBe('-1e-9');
    expect(cmp('1e2000000000', '1')).toBe(1);
    expect(cmp('1e-2000000000', '0')).toBe(1);
    expect(formatQuantity(add('1e2000000000', '0'))).toBe('100e1999999998'); // int64 Add with a zero
  });

  it('computes exact sums up to 10^1000 and refuses beyond', () => {
    const limit = add('1e1000', '1');
    expect(compareQuantities(limit, q(`1${'0'.repeat(999)}1`))).toBe(0);
    expect(formatQuantity(limit)).toBe(`1${'0'.repeat(999)}1`);
    expect(() => add('1e1001', '1')).toThrow(new QuantityError(ERR_TOO_LARGE));
    expect(() => add('1e2000000000', '1')).toThrow(ERR_TOO_LARGE);
    expect(() => sub('1n', '1e992')).toThrow(ERR_TOO_LARGE); // 10^(992+9)
    expect(() => sub('1n', '1e991')).not.toThrow();
  });

  it('keeps the scale arithmetic exact at the int32 edge (apimachinery widens it)', () => {
    expect(cmp('1.5e-2147483648', '1n')).toBe(0);
    expect(cmp('-1e-2147483648', '-1n')).toBe(0);
    expect(text('-1e-2147483648')).toBe('-1e-9');
  });

  it('a decimal-form parse that would need more digits is refused as too large', () => {
    // 19 digits leave the int64 fast path; the decimal form holds the value at 10^-9.
    expect(compareQuantities(q('1234567890123456789e991'), q('1.234567890123456789e1009'))).toBe(0);
    expect(quantityParseError('1234567890123456789e992')).toBe(ERR_TOO_LARGE);
    expect(tryParseQuantity('1234567890123456789e2000000000')).toBeUndefined();
  });
});

describe('where the CEL and Kyverno copies disagreed', () => {
  it('exponents beyond ±1000 parse (Kyverno refused them); results beyond 10^1000 are refused (CEL wrote out 10^100000)', () => {
    // apimachinery accepts every exponent that fits an int64 and wraps it to int32, and its own
    // tests parse and compare 1e±2147483647; Go would write out up to 2^31 digits for an add.
    expect(text('1e1001')).toBe('100e999');
    expect(cmp('1e1001', '1e1002')).toBe(-1);
    expect(cmp('1e-1001', '1n')).toBe(0);
    expect(() => add('1e5000', '1')).toThrow(ERR_TOO_LARGE);
  });

  it("AsApproximateFloat64 uses Go's math.Pow10, not the nearest double (Kyverno used 1e33)", () => {
    expect(goPow10(33)).toBe(1.0000000000000001e33);
    expect(quantityApproximateFloat(q('1e33'))).toBe(1.0000000000000001e33);
    expect(quantityApproximateFloat(q('5e45'))).toBe(5 * 1.0000000000000001e45);
  });

  it('Sub of the most negative int64 is exact (CEL wrapped the negation, as apimachinery did before canAlignInfScale)', () => {
    const y = sub('-9E', '223372036854775808');
    expect(y).toMatchObject({ unscaled: INT64_MIN, scale: 0, decimal: false });
    const r = subQuantities(q('1'), y);
    expect(compareQuantities(r, q('9223372036854775809'))).toBe(0);
    expect(r.decimal).toBe(true);
    // scales the decimal form cannot align (an int32 delta): Go keeps the wrapped negation
    const z = sub('-922337203685477580', '0.8');
    expect(z).toMatchObject({ unscaled: INT64_MIN, scale: 1, decimal: false });
    expect(compareQuantities(subQuantities(q('0e2147483647'), z), z)).toBe(0);
    expect(compareQuantities(subQuantities(q('0'), z), q('922337203685477580.8'))).toBe(0);
  });

  it('the numeric part needs a digit for inf.Dec (Kyverno read ".e-10" as 0)', () => {
    expect(quantityParseError('.e-10')).toBe(ERR_NUMERIC);
    expect(quantityParseError('-.e-10')).toBe(ERR_NUMERIC);
    expect(text('.e-9')).toBe('0'); // the int64 fast path never asks inf.Dec
    expect(text('.Ki')).toBe('0');
  });

  it('the BinarySI cap is inf.NewDec(2^63-1, 0), at scale 0 (Kyverno kept scale 9)', () => {
    expect(q('16Ei')).toMatchObject<Partial<Quantity>>({ unscaled: INT64_MAX, scale: 0, decimal: true, format: 'BinarySI' });
    expect(q('1.5Ei')).toMatchObject<Partial<Quantity>>({ unscaled: 1729382256910270464000000000n, scale: 9 });
  });

  it('String() of a parsed canonical text is that text, sign included (Kyverno printed "+5k" as "5k")', () => {
    expect(text('+5k')).toBe('+5k');
    expect(text('+1Ki')).toBe('+1Ki');
  });
});
