/**
 * Compile-time checks of `string.format` calls (cel-go ext/formatting.go stringFormatValidator, always on
 * for strings versions 1 to 3 since cel-go commit 8890f56d, in v0.25 and so in kube-apiserver's v0.26;
 * Kubernetes declares version 2). The cases are cel-go v0.26's TestStringFormat (ext/formatting_test.go)
 * whose arguments are literals: since that commit StringsValidateFormatCalls is a no-op, so even the
 * cases marked skipCompileCheck fail at compile time there, with the text the test expects (it matches
 * by substring).
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation } from '../../../src/cel/index.js';

function compileError(expression: string, dialect: 'kubernetes' | 'kyverno' = 'kubernetes'): string | undefined {
  const r = compileExpression(expression, 'variable', { params: false, dialect });
  return r.ok ? undefined : r.message;
}

interface Case {
  name: string;
  format: string;
  args: string;
  err: string;
  /** Adapted: ext.TestAllTypes (a protobuf message) replaced by Object{}, which Kubernetes names Object. */
  adapted?: true;
}

const STRING_CLAUSE = 'error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps';

// cel-go v0.26 ext/formatting_test.go TestStringFormat, the cases with an error and literal arguments.
const CASES: Case[] = [
  { name: 'unrecognized formatting clause', format: '%a', args: '1', err: 'could not parse formatting clause: unrecognized formatting clause "a"' },
  { name: 'out of bounds arg index', format: '%d %d %d', args: '0, 1', err: 'index 2 out of range' },
  { name: 'string substitution is not allowed with binary clause', format: 'string is %b', args: '"abc"', err: 'error during formatting: only integers and bools can be formatted as binary, was given string' },
  { name: 'duration substitution not allowed with decimal clause', format: '%d', args: 'duration("30m2s")', err: 'error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration' },
  { name: 'string substitution not allowed with octal clause', format: 'octal: %o', args: '"a string"', err: 'error during formatting: octal clause can only be used on integers, was given string' },
  { name: 'double substitution not allowed with hex clause', format: 'double is %x', args: '0.5', err: 'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double' },
  { name: 'uppercase not allowed for scientific clause', format: 'double is %E', args: '0.5', err: 'could not parse formatting clause: unrecognized formatting clause "E"' },
  { name: 'object not allowed', format: 'object is %s', args: 'Object{}', err: `${STRING_CLAUSE}, was given Object`, adapted: true },
  { name: 'object inside list', format: '%s', args: '[1, 2, Object{}]', err: `${STRING_CLAUSE}, was given Object`, adapted: true },
  { name: 'object inside map', format: '%s', args: '{1: "a", 2: Object{}}', err: `${STRING_CLAUSE}, was given Object`, adapted: true },
  { name: 'null not allowed for %d', format: 'null: %d', args: 'null', err: 'error during formatting: decimal clause can only be used on integers, was given null_type' },
  { name: 'null not allowed for %e', format: 'null: %e', args: 'null', err: 'error during formatting: scientific clause can only be used on doubles, was given null_type' },
  { name: 'null not allowed for %f', format: 'null: %f', args: 'null', err: 'error during formatting: fixed-point clause can only be used on doubles, was given null_type' },
  { name: 'null not allowed for %x', format: 'null: %x', args: 'null', err: 'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type' },
  { name: 'null not allowed for %X', format: 'null: %X', args: 'null', err: 'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type' },
  { name: 'null not allowed for %b', format: 'null: %b', args: 'null', err: 'error during formatting: only integers and bools can be formatted as binary, was given null_type' },
  { name: 'null not allowed for %o', format: 'null: %o', args: 'null', err: 'error during formatting: octal clause can only be used on integers, was given null_type' },
  { name: 'compile-time cardinality check (too few for string)', format: '%s %s', args: '"abc"', err: 'index 1 out of range' },
  { name: 'compile-time cardinality check (too many for string)', format: '%s %s', args: '"abc", "def", "ghi"', err: 'too many arguments supplied to string.format (expected 2, got 3)' },
  { name: 'compile-time syntax check (unexpected end of string)', format: 'filler %', args: '', err: 'unexpected end of string' },
  { name: 'compile-time syntax check (unrecognized formatting clause)', format: '%j', args: '123', err: 'could not parse formatting clause: unrecognized formatting clause "j"' },
  { name: 'compile-time %s check', format: 'object is %s', args: 'Object{}', err: STRING_CLAUSE, adapted: true },
  { name: 'compile-time check for objects inside list literal', format: 'list is %s', args: '[1, 2, Object{}]', err: STRING_CLAUSE, adapted: true },
  { name: 'compile-time %d check', format: 'int is %d', args: '5.2', err: 'error during formatting: decimal clause can only be used on integers' },
  { name: 'compile-time %f check', format: 'double is %f', args: 'true', err: 'error during formatting: fixed-point clause can only be used on doubles' },
  { name: 'compile-time precision syntax check', format: 'double is %.34', args: '5.0', err: 'could not parse formatting clause: error while parsing precision: could not find end of precision specifier' },
  { name: 'compile-time %e check', format: 'double is %e', args: 'true', err: 'error during formatting: scientific clause can only be used on doubles' },
  { name: 'compile-time %b check', format: 'string is %b', args: '"a string"', err: 'error during formatting: only integers and bools can be formatted as binary' },
  { name: 'compile-time %x check', format: '%x is a double', args: '2.5', err: 'error during formatting: only integers, byte buffers, and strings can be formatted as hex' },
  { name: 'compile-time %X check', format: '%X is a double', args: '2.5', err: 'error during formatting: only integers, byte buffers, and strings can be formatted as hex' },
  { name: 'compile-time %o check', format: 'an octal: %o', args: '3.14', err: 'error during formatting: octal clause can only be used on integers' },
];

describe('string.format compile-time checks (cel-go TestStringFormat)', () => {
  it.each(CASES)('$name', (c) => {
    // The Go test builds the expression with fmt.Sprintf("%q.format([%s])", format, args).
    const message = compileError(`"${c.format}".format([${c.args}])`);
    expect(message).toMatch(/^compilation failed: ERROR: <input>:1:\d+: /);
    expect(message!.split('\n')[0]).toContain(c.err);
  });
});

describe('string.format compile-time checks: positions and scope', () => {
  it('reports a clause type error at the element, a count or syntax error at the call', () => {
    // getErrorExprID: a formatError carries the element's id; other errors are the call's ('(' of it).
    expect(compileError('"%d".format(["a"])')).toBe(
      'compilation failed: ERROR: <input>:1:14: error during formatting: decimal clause can only be used on integers, was given string\n | "%d".format(["a"])\n | .............^',
    );
    expect(compileError('"%s %s".format(["abc","def","ghi"])')).toBe(
      'compilation failed: ERROR: <input>:1:15: too many arguments supplied to string.format (expected 2, got 3)\n | "%s %s".format(["abc","def","ghi"])\n | ..............^',
    );
    // verifyString descends into list literals and reports the member.
    expect(compileError('"%s".format([[1, optional.none()]])')).toContain('<input>:1:31: ' + STRING_CLAUSE + ', was given optional_type');
  });

  it('reads the format by bytes, as Go indexes a string', () => {
    // rune(formatStr[i]) of "é" (0xC3 0xA9) is U+00C3.
    expect(compileError('"%é".format([1])')).toContain('could not parse formatting clause: unrecognized formatting clause "Ã"');
    expect(compileError('"%.f".format([1.0])')).toContain(
      'error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
    );
  });

  it('checks only constant formats with list literals, and lets dyn elements through', () => {
    expect(compileError('"%s %d".format(["a", 1])')).toBeUndefined();
    expect(compileError('"%d %s".format([object.spec, object])')).toBeUndefined();
    expect(compileError('object.f.format(["a", "b"])')).toBeUndefined();
    expect(compileError('"%s".format(object.list)')).toBeUndefined();
    expect(compileError('"%%".format([])')).toBeUndefined();
    // The runtime still reports what the check cannot see.
    const r = compileExpression('"%d".format([object.s])', 'variable', { params: false });
    if (!r.ok) throw new Error(r.message);
    const out = new Evaluation({ object: { s: 'x' } as never }, { budget: 1_000_000 }).evaluate(r.compiled);
    expect(out.ok ? out.value : out.message).toContain('error during formatting: decimal clause can only be used on integers, was given string');
  });

  it('applies in the Kyverno dialect too (strings version 2 there as well)', () => {
    expect(compileError('"%s %s".format(["a"])', 'kyverno')).toContain('index 1 out of range');
  });
});
