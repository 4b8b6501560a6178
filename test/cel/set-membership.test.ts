/**
 * `x in <constant list>` as cel-go plans it under OptOptimize, which kube-apiserver's environment sets
 * (interpreter/decorators.go maybeOptimizeSetMembership): an empty constant list makes the whole test
 * the constant false, its left side never evaluated; a constant list of bools, numbers and strings
 * becomes a set lookup with no call cost; any other constant list (bytes, lists, maps, durations...)
 * stays an `@in` call charged the list's size (runtimecost.go, overloads.InList).
 */
import { describe, expect, it } from 'vitest';
import { Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression } from '../../src/cel/index.js';

const object = { metadata: { name: 'b' }, spec: { n: 3, list: ['a', 'b', 'c'] } };

function run(expr: string): { value?: unknown; error?: string; cost: number } {
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) throw new Error(c.message);
  const r = new Evaluation({ object }, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c.compiled);
  return r.ok ? { value: r.value, cost: r.cost } : { error: r.message, cost: (r as { cost?: number }).cost ?? -1 };
}

describe('membership in a constant list', () => {
  it('in an empty list is false without evaluating the left side', () => {
    expect(run('object.missing in []')).toEqual({ value: false, cost: 0 });
    expect(run('object.metadata.name in []')).toEqual({ value: false, cost: 0 });
    expect(run('!(object.missing in [])')).toEqual({ value: true, cost: 1 });
  });

  it('in a list of primitives is a set lookup: only the left side is charged', () => {
    // object.metadata.name: 1 for the identifier, 1 per field.
    expect(run("object.metadata.name in ['a', 'b', 'c']")).toEqual({ value: true, cost: 3 });
    expect(run('object.spec.n in [1, 2, 3]')).toEqual({ value: true, cost: 3 });
  });

  it('in a list of other constants is a call charged the list size', () => {
    expect(run('[1] in [[1]]')).toEqual({ value: true, cost: 1 });
    expect(run("object.spec.list in [['a', 'b', 'c'], ['x']]")).toEqual({ value: true, cost: 5 });
    expect(run("object.metadata.name in [b'a', b'b']")).toEqual({ value: false, cost: 5 });
    // dyn(...) is a call (1); the durations are constant conversions, so the list is constant.
    expect(run("dyn(object.spec.n) in [duration('1s'), duration('2s'), duration('3s')]")).toEqual({ value: false, cost: 7 });
  });
});
