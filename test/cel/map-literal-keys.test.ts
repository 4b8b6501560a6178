/**
 * Map literals with a repeated key. cel-go writes a literal's entries into a Go map in order
 * (interpreter/interpretable.go evalMap: `entries[keyVal] = valVal`, and `delete` for an optional entry
 * without a value), so in kube-apiserver the last entry of a key wins; cel-spec wants an error (its
 * tests map_value_repeat_key*, which cel-go skips). The admission environment follows cel-go; the
 * general environment keeps cel-spec's error unless told otherwise.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironment, Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression, formatCelValue, toApplyConfiguration } from '../../src/cel/index.js';

const object = { metadata: { name: 'web', labels: { team: 'a' } } };

function admission(expr: string, role: 'variable' | 'applyConfiguration' = 'variable'): unknown {
  const c = compileExpression(expr, role, { params: false });
  if (!c.ok) throw new Error(c.message);
  const r = new Evaluation({ object }, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c.compiled);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe('a repeated map key in the admission environment (cel-go: the last entry wins)', () => {
  const cases: [string, string][] = [
    ["{'a': 1, 'a': 2}", '{"a":2}'],
    ["{'a': 1, 'b': 2, 'a': 3}", '{"a":3,"b":2}'],
    ["{true: 1, false: 2, true: 3}[true]", '3'],
    ["{string(object.metadata.name): 1, 'web': 2}", '{"web":2}'],
    ["{'web': 1, string(object.metadata.name): 2}.size()", '1'],
    ["{'a': 1, ?'a': optional.of(2)}", '{"a":2}'],
    ["{'a': 1, ?'a': optional.none()}", '{}'],
    ["{?'a': optional.none(), 'a': 1}", '{"a":1}'],
    ["{'a': 1, ?'a': object.metadata.?missing.optMap(x, int(x)), 'b': 2}", '{"b":2}'],
  ];
  for (const [expr, want] of cases) it(expr, () => expect(formatCelValue(admission(expr) as never)).toBe(want));

  it('an ApplyConfiguration whose labels repeat a key gets the last value', () => {
    const v = admission(
      "Object{metadata: Object.metadata{labels: {'team': 'b', string(object.metadata.name): 'x', 'web': 'y'}}}",
      'applyConfiguration',
    );
    expect(toApplyConfiguration(v as never)).toEqual({ metadata: { labels: { team: 'b', web: 'y' } } });
  });
});

describe('a repeated map key in the general environment', () => {
  function run(env: CelEnvironment, expr: string) {
    const c = env.compile(expr, { check: true });
    if (!c.ok) throw new Error(c.message);
    return c.program.evaluate();
  }
  it('is an error by default (cel-spec)', () => {
    const env = new CelEnvironment();
    expect(run(env, "{'a': 1, 'a': 2}")).toMatchObject({ ok: false, message: 'Failed with repeated key' });
    expect(run(env, "{0: 1, 0u: 2}[0.0]")).toMatchObject({ ok: false, message: 'Failed with repeated key' });
  });
  it('keeps the last entry with errorOnRepeatedMapKey: false (cel-go)', () => {
    const r = run(new CelEnvironment({ errorOnRepeatedMapKey: false }), "{'a': 1, 'a': 2}['a']");
    expect(r).toMatchObject({ ok: true, value: 2n });
  });
});

/**
 * Double and null keys. cel-spec refuses them ('unsupported key type', its tests map_key_float and
 * map_key_null), but cel-go skips those tests (conformance/BUILD.bazel) and stores any key in its Go map
 * (interpreter/interpretable.go evalMap); a lookup finds the key itself, then a double as the int or
 * uint it equals, never an int as a double (common/types/map.go refValMapAccessor.Find).
 */
describe('double and null map keys in the admission environment (cel-go keeps them)', () => {
  const cases: [string, string][] = [
    ['{3.3: 15.15, 1.0: 5.0}[1.0]', '5.0'],
    ["{1.5: 'a'}[double(object.metadata.labels.size()) + 0.5]", '"a"'],
    ["1.5 in {1.5: 'a'}", 'true'],
    ["{null: 'a'}", '{"$map":[[null,"a"]]}'],
    ["null in {null: 'a'}", 'true'],
    ["{dyn(2): 'a', dyn(2.0): 'b'}.size()", '2'],
    ["{dyn(2): 'a', dyn(2.0): 'b'}[2.0]", '"b"'],
    ["{dyn(2): 'a', dyn(2.0): 'b'}[2]", '"a"'],
    ["{dyn(2): 'a'}[2.0]", '"a"'],
    ["{dyn(1.5): 'a'}[?1.5]", '{"$optional":"a"}'],
    ["dyn({1.0: 'a'}) == dyn({1: 'a'})", 'true'],
    ["dyn({1: 'a'}) == dyn({1.0: 'a'})", 'false'],
    ["{1.5: 'a', 2.5: 'b'}.transformMap(k, v, v + 'x')[2.5]", '"bx"'],
    ["{1.5: 'a'}.map(k, k)", '[1.5]'],
  ];
  for (const [expr, want] of cases) it(expr, () => expect(formatCelValue(admission(expr) as never)).toBe(want));

  it('an int does not find a double key', () => {
    expect(() => admission("{dyn(2.0): 'a'}[2]")).toThrow("no such key: 2");
  });
});

describe('double and null map keys in the general environment', () => {
  function run(env: CelEnvironment, expr: string) {
    const c = env.compile(expr, { check: false });
    if (!c.ok) throw new Error(c.message);
    return c.program.evaluate();
  }
  it('are an error by default (cel-spec)', () => {
    const env = new CelEnvironment();
    expect(run(env, '{3.3: 15.15, 1.0: 5}[1.0]')).toMatchObject({ ok: false, message: 'unsupported key type: double' });
    expect(run(env, '{null: false}')).toMatchObject({ ok: false, message: 'unsupported key type: null_type' });
  });
  it('are kept with errorOnDoubleOrNullMapKey: false (cel-go)', () => {
    const env = new CelEnvironment({ errorOnDoubleOrNullMapKey: false });
    expect(run(env, '{3.3: 15.15, 1.0: 5}[1.0]')).toMatchObject({ ok: true, value: 5n });
    expect(run(env, 'null in {null: false}')).toMatchObject({ ok: true, value: true });
  });
});
