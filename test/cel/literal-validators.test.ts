/**
 * Kubernetes' duration and timestamp literal validators (cel-go cel/validator.go formatValidator, which
 * kube-apiserver's base environment enables): the call is evaluated on its literal and a failure is a
 * compile error reading only `invalid <fn> argument` at the literal, for any literal (an int too).
 * Vectors from cel-go's cel/validator_test.go and kube-apiserver's schema/cel validation_test.go.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/cel/index.js';

function compileError(expr: string): string | undefined {
  const c = compileExpression(expr, 'variable', { params: false });
  return c.ok ? undefined : c.message;
}

describe('literal validators', () => {
  const invalid: [string, string][] = [
    ["duration('1')", "ERROR: <input>:1:10: invalid duration argument\n | duration('1')\n | .........^"],
    ["duration('1d')", "ERROR: <input>:1:10: invalid duration argument\n | duration('1d')\n | .........^"],
    ["duration('1us')\n < duration('1nns')", "ERROR: <input>:2:13: invalid duration argument\n |  < duration('1nns')\n | ............^"],
    ["timestamp('1000-00-00T00:00:00Z')", "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('1000-00-00T00:00:00Z')\n | ..........^"],
    ["timestamp('1000-01-01T00:00:00ZZ')", "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('1000-01-01T00:00:00ZZ')\n | ..........^"],
    ['timestamp(-62135596801)', 'ERROR: <input>:1:11: invalid timestamp argument\n | timestamp(-62135596801)\n | ..........^'],
    ['timestamp(253402300800)', 'ERROR: <input>:1:11: invalid timestamp argument\n | timestamp(253402300800)\n | ..........^'],
    ["timestamp('0000-01-01T00:00:00Z')", "ERROR: <input>:1:11: invalid timestamp argument\n | timestamp('0000-01-01T00:00:00Z')\n | ..........^"],
  ];
  for (const [expr, want] of invalid) {
    it(`${JSON.stringify(expr)} is refused`, () => expect(compileError(expr)).toBe(`compilation failed: ${want}`));
  }

  for (const expr of ["duration('2h3m4s5us')", "timestamp('1000-01-01T00:00:00Z')", 'timestamp(-6213559680)', 'timestamp(-62135596800)', 'duration(string(object.x))']) {
    it(`${expr} compiles`, () => expect(compileError(expr)).toBeUndefined());
  }

  it('run beside the homogeneous-literal validator, each reporting what it finds (cel-go env.Check)', () => {
    expect(compileError("[1, 'a'].size() + duration('x').getHours()")).toBe(
      "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'].size() + duration('x').getHours()\n | ....^\n" +
        "ERROR: <input>:1:28: invalid duration argument\n | [1, 'a'].size() + duration('x').getHours()\n | ...........................^",
    );
  });

  it('do not run when the type check fails', () => {
    expect(compileError("duration('x') + 1")).toMatch(/^compilation failed: ERROR: <input>:1:15: found no matching overload for '_\+_'[^\n]*\n[^\n]*\n[^\n]*$/);
  });
});
