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

describe('timestamps keep the offset they were parsed with (Go time.Parse, cel-go Timestamp.ConvertToType)', () => {
  it('string() and %s print it, arithmetic keeps it, UTC text stays Z', () => {
    expect(run("string(timestamp('2020-01-01T00:00:00+01:00'))").value).toBe('2020-01-01T00:00:00+01:00');
    expect(run("string(timestamp('2020-01-01T00:00:00.5-05:30') + duration('1h'))").value).toBe('2020-01-01T01:00:00.5-05:30');
    expect(run("string(duration('1h') + timestamp('2020-01-01T00:00:00+01:00'))").value).toBe('2020-01-01T01:00:00+01:00');
    expect(run("'%s %s'.format([timestamp('2020-01-01T00:00:00+01:00'), [timestamp('2020-01-01T00:00:00+01:00')]])").value).toBe(
      '2020-01-01T00:00:00+01:00 [timestamp("2020-01-01T00:00:00+01:00")]',
    );
    expect(run("string(timestamp('2020-01-01T00:00:00-00:00'))").value).toBe('2020-01-01T00:00:00Z');
    expect(run("string(timestamp(1577836800))").value).toBe('2020-01-01T00:00:00Z');
  });

  it('the instant is what compares, and the getters read it in UTC unless a zone is given', () => {
    expect(run("timestamp('2020-01-01T00:00:00+01:00') == timestamp('2019-12-31T23:00:00Z')").value).toBe(true);
    expect(run("timestamp('2020-01-01T00:00:00+01:00').getHours()").value).toBe(23n);
    expect(run("timestamp('2020-01-01T00:00:00+01:00').getHours('+01:00')").value).toBe(0n);
  });
});

describe('string(duration) as cel-go converts it (Duration.ConvertToType: d.Seconds(), a float64)', () => {
  it('prints the shortest fixed form of the seconds, so very long durations lose their last nanoseconds', () => {
    expect(run("string(duration('1h1ns'))").value).toBe('3600.000000001s');
    expect(run("string(duration('-0.000000001s'))").value).toBe('-0.000000001s');
    expect(run("string(duration('0s'))").value).toBe('0s');
    expect(run("string(duration('123456789.123456789s'))").value).toBe('123456789.12345679s');
    expect(run("string(duration('9223372036.854775807s'))").value).toBe('9223372036.854776s');
  });
});

