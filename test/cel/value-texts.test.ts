/**
 * Values in cel-go's run-time error texts, and index keys cel-go cannot qualify with.
 *
 * - `cannot initialize optional list element from non-optional value %v` and `cannot initialize
 *   optional entry '%v' from non-optional value %v` (interpreter/interpretable.go, for map entries and
 *   message fields alike) print the value with Go's %v: a list or map through its String method, a
 *   timestamp as time.Time.String, bytes as a byte slice, null as its int32.
 * - An index key that is not a string, int, uint, bool or double makes no qualifier
 *   (interpreter/attributes.go newQualifier: `invalid qualifier type: %T`): a computed key fails when
 *   evaluated, a constant one (a literal, or a conversion OptOptimize folds) fails program creation in
 *   Kubernetes, which plans with OptOptimize.
 */
import { describe, expect, it } from 'vitest';
import { CelEnvironment, Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression, type AdmissionInput } from '../../src/cel/index.js';

const input: AdmissionInput = {
  object: { s: 'abc', n: 1, f: 1e20, nul: null, l: [1, 'a'], m: { a: 1, b: [true] } } as never,
  oldObject: null,
};

function outcome(expr: string): string {
  const r = compileExpression(expr, 'variable', { params: false });
  if (!r.ok) return r.message;
  const v = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(r.compiled);
  return v.ok ? `value ${JSON.stringify(v.value)}` : v.message.replace(/^expression '.*' resulted in error: /s, '');
}

describe('a non-optional value where an optional is wanted', () => {
  it.each([
    ['[?object.s]', 'cannot initialize optional list element from non-optional value abc'],
    ['[?object.n]', 'cannot initialize optional list element from non-optional value 1'],
    ['[?object.f]', 'cannot initialize optional list element from non-optional value 1e+20'],
    ['[?object.nul]', 'cannot initialize optional list element from non-optional value 0'],
    ['[?object.l]', 'cannot initialize optional list element from non-optional value [1, a]'],
    ['[?object.m]', 'cannot initialize optional list element from non-optional value {a: 1, b: [true]}'],
    ["[?dyn(b'ab')]", 'cannot initialize optional list element from non-optional value [97 98]'],
    ["[?dyn(timestamp('2020-01-02T03:04:05.5+01:30'))]", 'cannot initialize optional list element from non-optional value 2020-01-02 03:04:05.5 +0130 +0130'],
    ['[?dyn(timestamp(0))]', 'cannot initialize optional list element from non-optional value 1970-01-01 00:00:00 +0000 UTC'],
    ["[?dyn(duration('90m'))]", 'cannot initialize optional list element from non-optional value 1h30m0s'],
    ['[?dyn(type([]))]', 'cannot initialize optional list element from non-optional value list(dyn)'],
    ["{?'k': object.l}", "cannot initialize optional entry 'k' from non-optional value [1, a]"],
    ["{?1u: dyn('x')}", "cannot initialize optional entry '1' from non-optional value x"],
    // A message field is worded as a map entry.
    ['Object{?spec: object.m}', "cannot initialize optional entry 'spec' from non-optional value {a: 1, b: [true]}"],
    ['Object{spec: Object.spec{?x: object.n}}', "cannot initialize optional entry 'x' from non-optional value 1"],
  ])('%s', (expr, want) => expect(outcome(expr)).toBe(want));
});

describe('index keys that make no qualifier', () => {
  it.each([
    ['object.m[object.nul]', 'invalid qualifier type: types.Null'],
    ['object.m[?object.nul]', 'invalid qualifier type: types.Null'],
    ['object.l[object.m]', 'invalid qualifier type: *types.baseMap'],
    ['object.?m[object.l]', 'invalid qualifier type: *types.baseList'],
    ['object.m[optional.none()]', 'invalid qualifier type: *types.Optional'],
    // The valid kinds still look the key up.
    ['object.m[object.s]', 'no such key: abc'],
    ['object.m[?object.s]', 'value {"present":false}'],
  ])('computed: %s', (expr, want) => expect(outcome(expr)).toBe(want));

  it.each([
    ['object.m[null]', 'types.Null'],
    ['object.m[[1]]', '*types.baseList'],
    ["object.m[?{'a': 1}]", '*types.baseMap'],
    ["object.m[b'a']", 'types.Bytes'],
    ["object.m[dyn(duration('1s'))]", 'types.Duration'],
    ['object.m[timestamp(0)]', 'types.Timestamp'],
    ['object.m[int]', '*types.Type'],
  ])('constant: %s fails program creation', (expr, type) => {
    expect(outcome(expr)).toBe(`program instantiation failed: invalid qualifier type: ${type}`);
  });

  it('a none optional container is not qualified', () => {
    expect(outcome('optional.none()[object.nul]')).toMatch(/^value /);
  });

  it('fails when evaluated without OptOptimize (the general environment, cel-spec conformance)', () => {
    const env = new CelEnvironment();
    const c = env.compile("dyn({0: 1})[dyn(b'')] || true");
    expect(c.ok && c.program.evaluate()).toMatchObject({ ok: true, value: true });
    const d = env.compile('dyn({0: 1})[null]');
    expect(d.ok && d.program.evaluate()).toMatchObject({ ok: false, message: 'invalid qualifier type: types.Null' });
  });
});
