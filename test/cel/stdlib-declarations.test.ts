/**
 * Which standard and optional-library functions the admission environment declares, as kube-apiserver's
 * cel-go does (environment/base.go: cel.OptionalTypes() at its latest version; cel-go's standard library).
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation, type CelValue } from '../../src/cel/index.js';

const object = { spec: { replicas: 3, opts: [1, 2] } };

function run(expression: string, dialect: 'kubernetes' | 'kyverno' = 'kubernetes'): { value?: CelValue; error?: string; cost?: number } {
  const r = compileExpression(expression, 'variable', { params: false, dialect });
  if (!r.ok) return { error: r.message.split('\n')[0] };
  const out = new Evaluation({ object: object as never }, { budget: 10_000_000 }).evaluate(r.compiled);
  if (out.ok) return { value: out.value, cost: out.cost };
  return { error: out.message.replace(/^expression '.*' resulted in error: /s, '') };
}

describe('optional library version 2 (cel-go cel/library.go)', () => {
  it('optional.unwrap and unwrapOpt keep the values of the optionals that have one', () => {
    expect(run('optional.unwrap([optional.of(1), optional.none(), optional.of(3)])')).toEqual({ value: [1n, 3n], cost: 14 });
    expect(run("[optional.none(), optional.of('a')].unwrapOpt()")).toEqual({ value: ['a'], cost: 13 });
    expect(run('optional.unwrap([])').value).toEqual([]);
    for (const dialect of ['kubernetes', 'kyverno'] as const) {
      expect(run('[object.spec.?replicas, object.spec.?missing].unwrapOpt() == [3]', dialect).value).toBe(true);
    }
  });

  it('a list of anything but optionals is refused: by the checker, or at run time for a dyn list', () => {
    expect(run('optional.unwrap([1])').error).toBe(
      "compilation failed: ERROR: <input>:1:16: found no matching overload for 'optional.unwrap' applied to '(list(int))'",
    );
    expect(run('optional.unwrap(object.spec.opts)')).toEqual({ error: 'value 1 is not optional' });
  });
});

describe('standard library conversions', () => {
  it('duration(int) is not declared (cel-go#1300): a compile error, and no such overload on a dyn int', () => {
    expect(run('duration(100)').error).toBe(
      "compilation failed: ERROR: <input>:1:9: found no matching overload for 'duration' applied to '(int)'",
    );
    expect(run('duration(object.spec.replicas)')).toEqual({ error: 'no such overload: duration(int)' });
    expect(run("duration('100ns') == duration(duration('100ns'))").value).toBe(true);
  });
});
