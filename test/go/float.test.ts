/**
 * Go's float64 text forms (src/go/float.ts). ParseFloat had two copies: the engine's read
 * decimal text only and took an overflow (`1e400`) for ±Inf, the JMESPath one read hexadecimal floats
 * with double rounding and no `_` separators. Go (strconv.ParseFloat) reads both forms with separators,
 * rounds exactly and reports an overflow as an error. The table is a subset of Go's
 * src/strconv/atof_test.go: [input, the result as %v prints it, error?].
 */
import { describe, expect, it } from 'vitest';
import { formatFloatE, formatFloatG, parseFloat64 } from '../../src/go/index.js';
import { evaluate } from '../../src/kyverno/jmespath/index.js';
import { evaluateOperator } from '../../src/kyverno/match/operators.js';
import { valueMatches } from '../../src/kyverno/match/pattern.js';
import { cel, celError } from '../cel/lib/env.js';

const ATOF: [string, string, boolean][] = [
["", "0", true],["1","1",false],["+1","1",false],["1x","0",true],["1.1.","0",true],["1e23","1e+23",false],["1E23","1e+23",false],
["100000000000000000000000","1e+23",false],["1e-100","1e-100",false],["123456700","1.234567e+08",false],
["99999999999999974834176","9.999999999999997e+22",false],["100000000000000000000001","1.0000000000000001e+23",false],
["100000000000000008388608","1.0000000000000001e+23",false],["100000000000000016777215","1.0000000000000001e+23",false],
["100000000000000016777216","1.0000000000000003e+23",false],["-1","-1",false],["-0.1","-0.1",false],["-0","-0",false],["1e-20","1e-20",false],["625e-3","0.625",false],
["0x1p0","1",false],["0x1p1","2",false],["0x1p-1","0.5",false],["0x1ep-1","15",false],["-0x1ep-1","-15",false],["-0x1_ep-1","-15",false],
["0x1p-200","6.223015277861142e-61",false],["0x1p200","1.6069380442589903e+60",false],["0x1fFe2.p0","131042",false],["0x1fFe2.P0","131042",false],
["-0x2p3","-16",false],["0x0.fp4","15",false],["0x0.fp0","0.9375",false],["0x1e2","0",true],["1p2","0",true],
["0","0",false],["0e0","0",false],["-0e0","-0",false],["+0e0","0",false],["0e-0","0",false],["0e+01234567890123456789","0",false],
["0.00e-01234567890123456789","0",false],["-0e+01234567890123456789","-0",false],["0x0p+01234567890123456789","0",false],["-0x0.00p-01234567890123456789","-0",false],
["0e348","0",false],["-0x0p1026","-0",false],
["nan","NaN",false],["NaN","NaN",false],["NAN","NaN",false],["inf","+Inf",false],["-Inf","-Inf",false],["+INF","+Inf",false],["-Infinity","-Inf",false],["+INFINITY","+Inf",false],["Infinity","+Inf",false],
["1.7976931348623157e308","1.7976931348623157e+308",false],["0x1.fffffffffffffp1023","1.7976931348623157e+308",false],["0x1fffffffffffffp+971","1.7976931348623157e+308",false],["0x.1fffffffffffffp1027","1.7976931348623157e+308",false],
["1.7976931348623159e308","+Inf",true],["0x1p1024","+Inf",true],["0x2p1023","+Inf",true],["0x.1p1028","+Inf",true],["0x.2p1027","+Inf",true],
["1.7976931348623158e308","1.7976931348623157e+308",false],["0x1.fffffffffffff7fffp1023","1.7976931348623157e+308",false],
["1.797693134862315808e308","+Inf",true],["0x1.fffffffffffff8p1023","+Inf",true],["0x1fffffffffffff.8p+971","+Inf",true],["-0x1fffffffffffff8p+967","-Inf",true],["0x.1fffffffffffff8p1027","+Inf",true],
["1e308","1e+308",false],["2e308","+Inf",true],["1e400000","+Inf",true],["0x1p2000000000","+Inf",true],
["5e-324","5e-324",false],["4e-324","5e-324",false],["2e-324","0",false],["1e-400000","0",false],
["0x2.00000000000000p-1010","1.8227805048890994e-304",false],["0x1.fffffffffffff7p-1010","1.8227805048890992e-304",false],["0x1.fffffffffffff8p-1010","1.8227805048890994e-304",false],
["0x1.fffffffffffff8p-1022","4.450147717014403e-308",false],["0x0.fffffffffffff0p-1022","2.225073858507201e-308",false],["0x0.ffffffffffffe7p-1022","2.2250738585072004e-308",false],["0x1.ffffffffffffe8p-1023","2.225073858507201e-308",false],
["0x0.00000003456788p-1022","1.694649e-317",false],["0x0.00000003456789p-1022","1.6946496e-317",false],["0x0.0000000345678800000000000000000000000001p-1022","1.6946496e-317",false],
["0x0.00000000000058p-1022","3e-323",false],["0x0.00000000000057p-1022","2.5e-323",false],["0x0.00000000000010p-1022","5e-324",false],["0x0.000000000000081p-1022","5e-324",false],["0x0.00000000000008p-1022","0",false],["0x0.00000000000007fp-1022","0",false],
["1e-4294967296","0",false],["1e+4294967296","+Inf",true],["0x1p-18446744073709551616","0",false],["0x1p+18446744073709551616","+Inf",true],
["1e","0",true],["1e-","0",true],[".e-1","0",true],["1\x00.2","0",true],["0x","0",true],["0x.","0",true],["0x1","0",true],["0x.1","0",true],["0x1p","0",true],["0x.1p+","0",true],["0x1p+2","4",false],["0x.1p+2","0.25",false],["0x.1p-2","0.015625",false],
["2.2250738585072012e-308","2.2250738585072014e-308",false],["0x1.00000000000008p0","1",false],["0x1.00000000000007Fp0","1",false],["0x1.000000000000081p0","1.0000000000000002",false],["0x1.00000000000018p0","1.0000000000000004",false],
["1_23.50_0_0e+1_2","1.235e+14",false],["-_123.5e+12","0",true],["_123.5e+12","0",true],["1__23.5e+12","0",true],["123_.5e+12","0",true],["123._5e+12","0",true],["123.5_e+12","0",true],["123.5__0e+12","0",true],["123.5e_+12","0",true],["123.5e+_12","0",true],["123.5e+1__2","0",true],["123.5e+12_","0",true],
["0x_1_2.3_4_5p+1_2","74565",false],["-_0x12.345p+12","0",true],["_0x12.345p+12","0",true],["0x__12.345p+12","0",true],["0x1__2.345p+12","0",true],["0x12_.345p+12","0",true],["0x12._345p+12","0",true],["0x12.3__45p+12","0",true],["0x12.345_p+12","0",true],["0x12.345p_+12","0",true],["0x12.345p+_12","0",true],["0x12.345p+1__2","0",true],["0x12.345p+12_","0",true],
["0x2."+"2".repeat(4000)+"p221","7.18931911124017e+66",false],["2."+"2".repeat(4000)+"e+1","22.22222222222222",false],
];

describe('parseFloat64 (strconv.ParseFloat)', () => {
  for (const [input, printed, error] of ATOF) {
    it(`${JSON.stringify(input).slice(0, 50)} → ${error ? 'error' : printed}`, () => {
      const x = parseFloat64(input);
      if (error) expect(x).toBeUndefined();
      else expect(x === undefined ? 'error' : formatFloatG(x)).toBe(printed);
    });
  }
});

describe('where the engine and JMESPath copies disagreed', () => {
  it('hexadecimal floats and digit separators are numbers in preconditions', () => {
    expect(evaluateOperator('equals', 16, '0x1p4')).toBe(true);
    expect(evaluateOperator('equals', 1000, '1_000')).toBe(true);
    expect(evaluateOperator('greaterthan', 16, '0x1p3')).toBe(true);
  });
  it('a value beyond float64 is not a number (Go: value out of range)', () => {
    expect(evaluateOperator('lessthan', 1, '1e400')).toBe(false);
    expect(evaluateOperator('greaterthan', 1, '-1e400')).toBe(false);
  });
  it('to_number rounds hexadecimal floats exactly and reads separators', () => {
    expect(evaluate("to_number('0x_1_2.3_4_5p+1_2')", {})).toEqual({ ok: true, value: 74565 });
    expect(evaluate("to_number('0x1.00000000000008p0')", {})).toEqual({ ok: true, value: 1 });
    expect(evaluate("to_number('0x1.000000000000081p0')", {})).toEqual({ ok: true, value: 1.0000000000000002 });
    expect(evaluate("to_number('1_000.5')", {})).toEqual({ ok: true, value: 1000.5 });
    expect(evaluate("to_number('1e400')", {})).toEqual({ ok: true, value: null });
  });
});

describe("formatFloatE (strconv.FormatFloat(x, 'E', -1, 64))", () => {
  it('prints validate-pattern floats as Go does', () => {
    expect(formatFloatE(1.5)).toBe('1.5E+00');
    expect(formatFloatE(-0.000123)).toBe('-1.23E-04');
    expect(formatFloatE(1e100)).toBe('1E+100');
    expect(formatFloatE(123456.789)).toBe('1.23456789E+05');
  });
});

describe('numbers in validate patterns', () => {
  it('an integral pattern reads the value with strconv.ParseInt, a larger or fractional one with ParseFloat', () => {
    expect(valueMatches('42', 42)).toBe(true);
    expect(valueMatches('42.0', 42)).toBe(false);
    expect(valueMatches('0x2Ap0', 42)).toBe(false);
    expect(valueMatches('42.5', 42.5)).toBe(true);
    expect(valueMatches('0x2A.8p0', 42.5)).toBe(true);
    expect(valueMatches('100000000000000000000', 1e20)).toBe(true); // beyond int64: a float64 pattern
  });
});

describe('CEL conversions use the same strconv (cel-go calls FormatFloat, ParseFloat, ParseInt, ParseUint)', () => {
  it("string(double) is FormatFloat 'g' as in Kyverno's %v", () => {
    for (const x of [0.1, 1234567.5, 1e21, 1e-7, -0, 123456]) expect(cel('string(x)', { x })).toBe(formatFloatG(x));
  });
  it('double(string) reads what ParseFloat reads and refuses an overflow', () => {
    expect(cel("double('0x1p-1')")).toBe(0.5);
    expect(cel("double('1_000.5')")).toBe(1000.5);
    // Read from a variable: a conversion of a constant fails when the program is created (OptOptimize).
    expect(celError('double(s)', { s: '1e400' })).toBe("type conversion error from 'string' to 'double'");
    expect(celError("double('1e400')")).toBe("program instantiation failed: type conversion error from 'string' to 'double'");
  });
  it('int(string) and uint(string) take no sign where ParseUint takes none', () => {
    expect(cel("int('+5')")).toBe(5n);
    expect(celError('int(s)', { s: '9223372036854775808' })).toBe("type conversion error from 'string' to 'int'");
    expect(celError('uint(s)', { s: '+5' })).toBe("type conversion error from 'string' to 'uint'");
  });
});
