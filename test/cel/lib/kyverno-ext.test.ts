/**
 * cel-go's ext.Encoders and ext.Math in the Kyverno dialect (Kyverno's base environment registers them,
 * pkg/cel/compiler/env.go) with cel-go's test cases (ext/encoders_test.go, ext/math_test.go) as data,
 * Kyverno's orValue compatibility macro, and their absence from the Kubernetes environment of
 * MutatingAdmissionPolicy.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation, type CelValue } from '../../../src/cel/index.js';

type Outcome = { value?: CelValue; error?: string; compileError?: string };

function run(expression: string, dialect: 'kyverno' | 'kubernetes' = 'kyverno'): Outcome {
  const r = compileExpression(expression, 'variable', { params: false, dialect });
  if (!r.ok) return { compileError: r.message };
  const out = new Evaluation({ object: {} as never }, { budget: 10_000_000 }).evaluate(r.compiled);
  return out.ok ? { value: out.value } : { error: out.message };
}

/** A cel-go case: `expr` evaluates to true, or fails (at compile time when `compile`) with a message containing `err`. */
interface Case {
  expr: string;
  err?: string;
  compile?: boolean;
}

function check(c: Case): void {
  const out = run(c.expr);
  if (c.err === undefined) {
    expect(out, c.expr).toEqual({ value: true });
  } else if (c.compile) {
    expect(out.compileError, c.expr).toContain(c.err);
  } else {
    expect(out.compileError, c.expr).toBeUndefined();
    expect(out.error, c.expr).toContain(c.err);
  }
}

// cel-go ext/encoders_test.go TestEncoders.
const ENCODERS: Case[] = [
  { expr: "base64.decode('aGVsbG8=') == b'hello'" },
  { expr: "base64.decode('aGVsbG8') == b'hello'" },
  { expr: "base64.decode(b'aGVsbG8=') == b'hello'", err: 'no matching overload', compile: true },
  { expr: "base64.encode(b'hello') == 'aGVsbG8='" },
  { expr: "base64.encode('hello') == b'aGVsbG8='", err: 'no matching overload', compile: true },
];

describe('cel-go ext.Encoders (Kyverno dialect)', () => {
  it.each(ENCODERS)('$expr', check);

  it('decode errors carry Go encoding/base64 text (of the unpadded retry)', () => {
    expect(run("base64.decode('a')").error).toMatch(/: illegal base64 data at input byte 0$/);
    expect(run("base64.decode('aGVs*')").error).toMatch(/: illegal base64 data at input byte 4$/);
    expect(run("base64.decode('aGVsbG8=x')").error).toMatch(/: illegal base64 data at input byte 7$/);
    expect(run("base64.decode('')").value).toEqual(new Uint8Array());
    expect(run("base64.encode(b'hi')").value).toBe('aGk=');
  });
});


// cel-go ext/math_test.go TestMath (the variables a, b (dyn) and numbers (list<double>) bound with cel.bind).
const MATH: string[] = [
  'math.least(-0.5) == -0.5',
  'math.least(-1) == -1',
  'math.least(1u) == 1u',
  'math.least(42.0, -0.5) == -0.5',
  'math.least(-1, 0) == -1',
  'math.least(-1, -1) == -1',
  'math.least(1u, 42u) == 1u',
  'math.least(42.0, -0.5, -0.25) == -0.5',
  'math.least(-1, 0, 1) == -1',
  'math.least(-1, -1, -1) == -1',
  'math.least(1u, 42u, 0u) == 0u',
  'math.least(1, 1.0) == 1',
  'math.least(1, -2.0) == -2.0',
  'math.least(2, 1u) == 1u',
  'math.least(1.5, 2) == 1.5',
  'math.least(1.5, -2) == -2',
  'math.least(2.5, 1u) == 1u',
  'math.least(1u, 2) == 1u',
  'math.least(1u, -2) == -2',
  'math.least(2u, 2.5) == 2u',
  'math.least(1u, dyn(42)) == 1',
  'math.least([1u, 42u, 0u]) == 0u',
  'math.greatest(-0.5) == -0.5',
  'math.greatest(-1) == -1',
  'math.greatest(1u) == 1u',
  'math.greatest(42.0, -0.5) == 42.0',
  'math.greatest(-1, 0) == 0',
  'math.greatest(-1, -1) == -1',
  'math.greatest(1u, 42u) == 42u',
  'math.greatest(42.0, -0.5, -0.25) == 42.0',
  'math.greatest(-1, 0, 1) == 1',
  'math.greatest(-1, -1, -1) == -1',
  'math.greatest(1u, 42u, 0u) == 42u',
  'math.greatest(1, 1.0) == 1',
  'math.greatest(1, -2.0) == 1',
  'math.greatest(2, 1u) == 2',
  'math.greatest(1.5, 2) == 2',
  'math.greatest(1.5, -2) == 1.5',
  'math.greatest(2.5, 1u) == 2.5',
  'math.greatest(1u, 2) == 2',
  'math.greatest(1u, -2) == 1u',
  'math.greatest(2u, 2.5) == 2.5',
  'math.greatest(1u, dyn(42)) == 42.0',
  'math.bitAnd(1, 2) == 0',
  'math.bitAnd(1, -1) == 1',
  'math.bitAnd(1, 3) == 1',
  'math.bitOr(1, 2) == 3',
  'math.bitXor(1, 3) == 2',
  'math.bitXor(3, 5) == 6',
  'math.bitNot(1) == -2',
  'math.bitNot(0) == -1',
  'math.bitNot(-1) == 0',
  'math.bitShiftLeft(1, 2) == 4',
  'math.bitShiftLeft(1, 200) == 0',
  'math.bitShiftLeft(-1, 200) == 0',
  'math.bitShiftRight(1024, 2) == 256',
  'math.bitShiftRight(1024, 64) == 0',
  'math.bitShiftRight(-1024, 3) == 2305843009213693824',
  'math.bitShiftRight(-1024, 64) == 0',
  'math.bitAnd(1u, 2u) == 0u',
  'math.bitAnd(1u, 3u) == 1u',
  'math.bitOr(1u, 2u) == 3u',
  'math.bitXor(1u, 3u) == 2u',
  'math.bitXor(3u, 5u) == 6u',
  'math.bitNot(1u) == 18446744073709551614u',
  'math.bitNot(0u) == 18446744073709551615u',
  'math.bitShiftLeft(1u, 2) == 4u',
  'math.bitShiftLeft(1u, 200) == 0u',
  'math.bitShiftRight(1024u, 2) == 256u',
  'math.bitShiftRight(1024u, 64) == 0u',
  'math.isNaN(0.0/0.0)',
  '!math.isNaN(1.0/0.0)',
  'math.isFinite(1.0/1.5)',
  '!math.isFinite(1.0/0.0)',
  'math.isInf(1.0/0.0)',
  'math.ceil(1.2) == 2.0',
  'math.ceil(-1.2) == -1.0',
  'math.floor(1.2) == 1.0',
  'math.floor(-1.2) == -2.0',
  'math.round(1.2) == 1.0',
  'math.round(1.5) == 2.0',
  'math.round(-1.5) == -2.0',
  'math.isNaN(math.round(0.0/0.0))',
  'math.round(-1.2) == -1.0',
  'math.trunc(-1.3) == -1.0',
  'math.trunc(1.3) == 1.0',
  'math.sign(-42) == -1',
  'math.sign(0) == 0',
  'math.sign(42) == 1',
  'math.sign(0u) == 0u',
  'math.sign(42u) == 1u',
  'math.sign(-0.3) == -1.0',
  'math.sign(0.0) == 0.0',
  'math.isNaN(math.sign(0.0/0.0))',
  'math.sign(1.0/0.0) == 1.0',
  'math.sign(-1.0/0.0) == -1.0',
  'math.sign(0.3) == 1.0',
  'math.abs(-1) == 1',
  'math.abs(1) == 1',
  'math.abs(-234.5) == 234.5',
  'math.abs(234.5) == 234.5',
  'math.sqrt(49.0) == 7.0',
  'math.sqrt(0) == 0.0',
  'math.sqrt(1) == 1.0',
  'math.sqrt(25u) == 5.0',
  'math.sqrt(82) == 9.055385138137417',
  'math.sqrt(985.25) == 31.388692231439016',
  'math.isNaN(math.sqrt(-15.34))',
  'cel.bind(a, dyn(1), cel.bind(b, 2, math.least(a, b) == a))',
  'cel.bind(a, dyn(-21), cel.bind(numbers, [-21.0, -10.5, 1.0], math.least(numbers) == dyn(a)))',
  'cel.bind(a, dyn(1), cel.bind(b, 2, math.greatest(a, b) == b))',
  'cel.bind(a, dyn(1), cel.bind(numbers, [-21.0, -10.5, 1.0], math.greatest(numbers) == dyn(a)))',
  // TestMathWithExtension
  'math.least(0, 1, 2) == 0',
];

// cel-go ext/math_test.go TestMathStaticErrors: refused when the expression is compiled.
const MATH_STATIC_ERRORS: [string, string][] = [
  ['math.least()', 'math.least() requires at least one argument'],
  ['math.least(\'hello\')', 'math.least() invalid single argument value'],
  ['math.least({})', 'math.least() invalid single argument value'],
  ['math.least(1, true)', 'math.least() simple literal arguments must be numeric'],
  ['math.least(1, 2, true)', 'math.least() simple literal arguments must be numeric'],
  ['math.greatest()', 'math.greatest() requires at least one argument'],
  ['math.greatest(true)', 'math.greatest() invalid single argument value'],
  ['math.greatest([])', 'math.greatest() invalid single argument value'],
  ['math.greatest([1, true])', 'math.greatest() invalid single argument value'],
  ['math.greatest(1, true)', 'math.greatest() simple literal arguments must be numeric'],
  ['math.greatest(1, 2, true)', 'math.greatest() simple literal arguments must be numeric'],
];

// cel-go ext/math_test.go TestMathRuntimeErrors (a: dyn, b: int).
const MATH_RUNTIME_ERRORS: [string, string][] = [
  ['cel.bind(a, dyn([]), cel.bind(b, 1, math.least(a, b)))', 'no such overload: math.@min'],
  ['cel.bind(a, dyn([]), cel.bind(b, 1, math.least(b, a)))', 'no such overload: math.@min'],
  ['cel.bind(a, dyn([]), math.least(a))', 'math.@min(list) argument must not be empty'],
  ['cel.bind(a, dyn(["hello"]), math.least(a))', 'no such overload: math.@min'],
  ['cel.bind(a, dyn([dyn([]), dyn([])]), math.least(a))', 'no such overload: math.@min'],
  ['cel.bind(a, dyn([dyn(1), dyn(true), dyn(2)]), math.least(a))', 'no such overload: math.@min'],
  ['math.least(dyn(\'string\'))', 'no such overload: math.@min'],
  ['cel.bind(a, dyn([]), cel.bind(b, 1, math.greatest(a, b)))', 'no such overload: math.@max'],
  ['cel.bind(a, dyn([]), cel.bind(b, 1, math.greatest(b, a)))', 'no such overload: math.@max'],
  ['cel.bind(a, dyn([]), math.greatest(a))', 'math.@max(list) argument must not be empty'],
  ['cel.bind(a, dyn([true]), math.greatest(a))', 'no such overload: math.@max'],
  ['cel.bind(a, dyn([dyn(1), dyn(true), dyn(2)]), math.greatest(a))', 'no such overload: math.@max'],
  ['math.greatest(dyn(\'string\'))', 'no such overload: math.@max'],
  ['math.bitShiftLeft(1, -2) == 4', 'math.bitShiftLeft() negative offset'],
  ['math.bitShiftLeft(1u, -2) == 0u', 'math.bitShiftLeft() negative offset'],
  ['math.bitShiftRight(-1024, -3) == -128', 'math.bitShiftRight() negative offset'],
  ['math.bitShiftRight(1024u, -4) == 1u', 'math.bitShiftRight() negative offset'],
  ['math.abs(-9223372036854775808)', 'overflow'],
  ['math.bitOr(dyn(1.2), 1)', 'no such overload: math.bitOr(double, int)'],
  ['math.bitAnd(2u, dyn(\'\'))', 'no such overload: math.bitAnd(uint, string)'],
  ['math.bitXor(dyn(1), dyn(1u))', 'no such overload: math.bitXor(int, uint)'],
  ['math.bitXor(dyn([]), dyn([1]))', 'no such overload: math.bitXor(list, list)'],
  ['math.bitNot(dyn([1]))', 'no such overload: math.bitNot(list)'],
  ['math.bitShiftLeft(dyn([1]), 1)', 'no such overload: math.bitShiftLeft(list, int)'],
  ['math.bitShiftRight(dyn({}), 1)', 'no such overload: math.bitShiftRight(map, int)'],
  ['math.isInf(dyn(1u))', 'no such overload: math.isInf(uint)'],
  ['math.isFinite(dyn(1u))', 'no such overload: math.isFinite(uint)'],
  ['math.isNaN(dyn(1u))', 'no such overload: math.isNaN(uint)'],
  ['math.sign(dyn(\'\'))', 'no such overload: math.sign(string)'],
  ['math.abs(dyn(\'\'))', 'no such overload: math.abs(string)'],
  ['math.ceil(dyn(\'\'))', 'no such overload: math.ceil(string)'],
  ['math.floor(dyn(\'\'))', 'no such overload: math.floor(string)'],
  ['math.round(dyn(1))', 'no such overload: math.round(int)'],
  ['math.trunc(dyn(1u))', 'no such overload: math.trunc(uint)'],
  ['math.sqrt(dyn(\'\'))', 'no such overload: math.sqrt(string)'],
];

describe('cel-go ext.Math (Kyverno dialect)', () => {
  it.each(MATH)('%s', (expr) => check({ expr }));
  it.each(MATH_STATIC_ERRORS)('%s is refused: %s', (expr, err) => check({ expr, err, compile: true }));
  it.each(MATH_RUNTIME_ERRORS)('%s fails: %s', (expr, err) => check({ expr, err }));

  it('a receiver other than math is no macro call (TestMathNonMatch)', () => {
    // Kyverno declares no int.least/int.greatest: the call stays a plain method call, which does not compile.
    expect(run('100.least(42) == 42').compileError).toContain("'least'");
    expect(run('100.greatest(42) == 100').compileError).toContain("'greatest'");
  });

  it("Kyverno's math.round(double, int) stays beside cel-go's math.round(double)", () => {
    expect(run('math.round(1.2345, 2)').value).toBe(1.23);
    expect(run('math.round(-2.5)').value).toBe(-3);
  });

  it("mixed-type results keep the winning argument's type; NaN cannot be ordered; Go's shifts", () => {
    expect(run('math.greatest(dyn(1u), dyn(2.5), dyn(3))').value).toBe(3n);
    // Three or more arguments become a list literal, which Kyverno's environment (homogeneous aggregate
    // literals) refuses to mix types in, as it does here.
    expect(run('math.greatest(1u, 2.5, 3)').compileError).toContain("expected type 'uint' but found 'double'");
    // ... and to mix a type with dyn (cel-go's validator wants equivalent element types): TestMath's
    // math.least(1u, dyn(42), dyn(0.0)) does not compile there.
    for (const expr of ['math.least(1u, dyn(42), dyn(0.0)) == 0u', 'math.greatest(1u, dyn(0.0), 0u) == 1', 'math.greatest([1u, dyn(0.0), 0u]) == 1']) {
      expect(run(expr).compileError, expr).toContain("expected type 'uint' but found 'dyn'");
    }
    expect(run('math.greatest([dyn(1u), dyn(0.0), dyn(0u)]) == 1').value).toBe(true);
    expect(run('math.least(0.0/0.0, 1.0)').error).toContain('NaN values cannot be ordered: math.@min');
    expect(run('math.bitShiftRight(-1, 1)').value).toBe(9223372036854775807n);
    expect(run('math.bitShiftLeft(1, 63)').value).toBe(-9223372036854775808n);
  });
});

describe("Kyverno's orValue compatibility (env.go OrValueCompatEnvOptions, MutatingPolicy's compiler)", () => {
  it.each<[string, CelValue]>([
    ["'a'.orValue('b')", 'a'],
    ['optional.none().orValue(1)', 1n],
    ['optional.of(2).orValue(1) + 1', 3n],
    ["{'a': 1}.?b.orValue(5)", 5n],
    ["{'a': 1}.?a.orValue(5)", 1n],
    ['[1].orValue([])', [1n]],
  ])('%s', (expr, want) => {
    expect(run(expr)).toEqual({ value: want });
  });

  it('is strict like any function: an error argument is the result', () => {
    expect(run('(1/0).orValue(3)').error).toContain('division by zero');
    expect(run('optional.of(1).orValue(1/0)').error).toContain('division by zero');
  });

  it('MutatingAdmissionPolicy keeps cel-go\'s orValue (optional receivers only)', () => {
    expect(run("'a'.orValue('b')", 'kubernetes').compileError).toContain("found no matching overload for 'orValue'");
    expect(run('optional.none().orValue(1)', 'kubernetes')).toEqual({ value: 1n });
  });
});

describe('MutatingAdmissionPolicy (Kubernetes environment) has neither', () => {
  it.each(["base64.encode(b'hi')", "base64.decode('aGk=')"])('%s does not compile', (expr) => {
    expect(run(expr, 'kubernetes').compileError).toContain("undeclared reference to 'base64'");
  });
  it.each(['math.greatest(1, 2)', 'math.least([1, 2])', 'math.sqrt(4.0)', 'math.bitAnd(3, 1)', 'math.round(1.5)', 'math.abs(-1)'])('%s does not compile', (expr) => {
    expect(run(expr, 'kubernetes').compileError).toContain("undeclared reference to 'math'");
  });
});
