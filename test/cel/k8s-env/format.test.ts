/**
 * string.format in kube-apiserver's environment: cel-go's strings library at version 2, whose
 * formatter is ext/formatting.go (x/text's en_US printer for %f and %e).
 */
import { describe, expect, it } from 'vitest';
import { k8sEval } from './run.js';

const INVALID_UTF8 = 'error during formatting: could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string';

describe('format %s of bytes', () => {
  it('fails on invalid UTF-8, alone or as a list or map member (FormatString: Bytes.ConvertToType(StringType) is an error)', () => {
    expect(k8sEval("'%s'.format([b'ab\\xff'])")).toEqual({ error: INVALID_UTF8 });
    expect(k8sEval("'%s'.format([[b'ok', b'\\xc0\\x80']])")).toEqual({ error: INVALID_UTF8 });
    expect(k8sEval("'%s'.format([{'k': b'\\xed\\xa0\\x80'}])")).toEqual({ error: INVALID_UTF8 });
  });

  it('writes valid UTF-8, and %x takes any bytes', () => {
    expect(k8sEval("'%s|%s'.format([b'\\xc3\\xa9', [b'\\xef\\xbf\\xbd']])")).toEqual({ value: 'é|[b"�"]' });
    expect(k8sEval("'%x'.format([b'\\xff'])")).toEqual({ value: 'ff' });
  });
});

describe('format %f and %e as x/text prints them', () => {
  it('a negative zero prints as zero: ConvertFloat reads strconv\'s "-0" as no digits', () => {
    expect(k8sEval("'%f|%.2f|%e'.format([-0.0, -0.0, -0.0])")).toEqual({ value: '0.000000|0.00|0.000000×10⁰⁰' });
    expect(k8sEval("'%.2f'.format([-0.001])")).toEqual({ value: '-0.00' }); // a negative value rounded to zero keeps its sign
  });

  it('%.<p>f pads to p mod 256 fraction digits and rounds to int16(p) (initDecimal: uint8, int16)', () => {
    expect(k8sEval("'%.255f'.format([0.5]).size()")).toEqual({ value: 257n });
    expect(k8sEval("'%.256f|%.256f|%.258f'.format([0.5, 1.0, 1.0])")).toEqual({ value: '0.5|1|1.00' });
    expect(k8sEval("'%.300f'.format([0.1])")).toEqual({ value: '0.1000000000000000055511151231257827021181583404541015625' });
    // int16(32768) < 0: the shortest form; int16(65538) = 2.
    expect(k8sEval("'%.32768f|%.65538f'.format([0.1, 1.23456])")).toEqual({ value: '0.1|1.23' });
    expect(k8sEval("'%.32768f'.format([1e21])")).toEqual({ value: '1,000,000,000,000,000,000,000' });
  });

  it('%.<p>e is printed as %<p>e: a width, padded with spaces on the left (0 is the zero flag)', () => {
    expect(k8sEval("'%.14e'.format([1.0])")).toEqual({ value: ' 1.000000×10⁰⁰' });
    expect(k8sEval("'%.20e'.format([-1234.5])")).toEqual({ value: '      -1.234500×10⁰³' });
    expect(k8sEval("'%.0e|%.5e'.format([1.0, 1.0])")).toEqual({ value: '1.000000×10⁰⁰|1.000000×10⁰⁰' });
    // No precision is %6e: NaN and the infinities are shorter than that.
    expect(k8sEval("'%e|%e|%.10e'.format([double('NaN'), '-Infinity', 'Infinity'])")).toEqual({ value: '   NaN|    -∞|         ∞' });
    expect(k8sEval("'%.65550e'.format([1.0])")).toEqual({ value: ' 1.000000×10⁰⁰' }); // uint16 width
  });

  it('a precision of 10,000,010 or more is no verb at all; there is no maximum below it', () => {
    expect(k8sEval("'%.10000010f|%.10000010e'.format([1.0, double('NaN')])")).toEqual({ value: '%!(NOVERB)|%!(NOVERB)' });
    expect(k8sEval("'%.10000009f'.format([1.0]).size()")).toEqual({ value: 139n }); // 10000009 mod 256 = 137
    expect(k8sEval("'%.1001f'.format(dyn([1.0])).size()")).toEqual({ value: 235n }); // 1001 mod 256 = 233
  });

  it('reads the verb as one byte and the precision with strconv.Atoi, at run time too', () => {
    expect(k8sEval("'%é'.format(dyn([1]))")).toEqual({ error: 'could not parse formatting clause: unrecognized formatting clause "Ã"' });
    expect(k8sEval("'%.99999999999999999999f'.format(dyn([1.0]))")).toEqual({
      error:
        'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "99999999999999999999": value out of range',
    });
  });
});

describe('format %s of a list or map member no clause formats', () => {
  it("is clauseForType's 'no formatting function', the top-level argument FormatString's own text", () => {
    const top = 'error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given kubernetes.Quantity';
    expect(k8sEval("'%s'.format([dyn(quantity('1'))])")).toEqual({ error: top });
    expect(k8sEval("'%s'.format([dyn([quantity('1')])])")).toEqual({ error: 'error during formatting: no formatting function for kubernetes.Quantity' });
    expect(k8sEval("'%s'.format([dyn({'a': [ip('::1')]})])")).toEqual({ error: 'error during formatting: no formatting function for net.IP' });
    expect(k8sEval("'%s'.format([dyn([optional.of(1)])])")).toEqual({ error: 'error during formatting: no formatting function for optional_type' });
  });
});
