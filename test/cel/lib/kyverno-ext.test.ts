/**
 * cel-go's ext.Encoders and ext.Math in the Kyverno dialect (Kyverno's base environment registers them,
 * pkg/cel/compiler/env.go) with cel-go's test cases (ext/encoders_test.go, ext/math_test.go) as data,
 * and their absence from the Kubernetes environment of MutatingAdmissionPolicy.
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

describe('MutatingAdmissionPolicy (Kubernetes environment) has neither', () => {
  it.each(["base64.encode(b'hi')", "base64.decode('aGk=')"])('%s does not compile', (expr) => {
    expect(run(expr, 'kubernetes').compileError).toContain("undeclared reference to 'base64'");
  });
});
