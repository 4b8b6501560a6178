/**
 * The cost model, construct by construct, in cel-go's units as Kubernetes configures them
 * (interpreter/runtimecost.go, OptOptimize, has() free). Figures derive from those rules; the
 * cel-cost vectors pin the ones the reference measured.
 */
import { describe, expect, it } from 'vitest';
import { Evaluation, compileExpression } from '../../src/cel/index.js';

const input = { object: { a: { b: 'x' }, l: [1, 2], s: 'aaaaaaaaaaaaaaaaaaaaaaaaa' } };

function cost(expr: string): number {
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) throw new Error(c.message);
  const r = new Evaluation(input, { budget: 1e9 }).evaluate(c.compiled);
  if (!r.ok) throw new Error(r.message);
  return r.cost;
}

describe('cost model (cel-go units)', () => {
  const cases: [string, number, string][] = [
    ['1 + 2', 1, 'constants are free, a call costs 1'],
    ['object.a', 2, 'identifier 1 + qualifier 1'],
    ['object.a.b', 3, 'one more qualifier'],
    ['has(object.a.b)', 2, 'the presence test itself is free'],
    ["{'a': 1}.a", 2, 'a qualifier on a computed value: relative attribute 1 + qualifier 1'],
    ['[1, 2, 3]', 0, 'constant aggregates are folded'],
    ['[object.a]', 12, 'list creation 10'],
    ["{'k': object.a}", 32, 'map creation 30'],
    ['Object{a: 1}', 40, 'object creation 40'],
    ["'abc'.startsWith('a')", 1, 'ceil(0.1 × size)'],
    ["object.s.contains('a')", 5, '2 + ceil(0.1 × 25) × ceil(0.1 × 1)'],
    ["'ab' + 'cd'", 1, 'ceil(0.1 × (2 + 2))'],
    ['object.a.b in [1, 2, 3]', 3, 'membership in a constant list is a set lookup'],
    ['object.l.all(x, x > 0)', 13, 'range 2 + 2 × (condition 2 + step 3) + result 1'],
    ['object.l.exists(x, x == 2)', 15, 'range 2 + 2 × (condition 3 + step 3) + result 1'],
    ['object.l.exists_one(x, x == 2)', 10, 'range 2 + (2 + 0: the false branch @result is free) + (2 + 2) + result 2'],
    ["object.s.startsWith('a')", 3, '2 + ceil(0.1 × size of the prefix) (cel-go v0.29.2)'],
    ["object.l.size() > 1 ? object.a.b : 'z'", 6, 'condition 4 + branch attribute without its root: qualifiers a, b'],
    ["(object.l.size() > 5 ? 'z' : object.a).b", 6, 'condition 4 + branch qualifier a + select on the conditional: a qualifier, no relative +1'],
    ['object.l.filter(x, x > 1)', 20, 'range 2 + (2 + 0) + (2 + accu 1 + x 1 + list 10 + add 1) + result 1'],
    ['object.?zz', 1, 'an absent optional field is not charged'],
    ['object.?a', 2, 'a present one is'],
    ["{'k': 1}[?object.a.b]", 3, 'relative attribute 1 + key qualifiers (b 1, a 1) + absent [?key] 0'],
    ["object.zz == 'x' || true", 3, 'identifier 1 + failing qualifier 1 + the equality charged with an error argument'],
    ["object.a.zz.q == 'x' || true", 4, 'qualifiers after the failing one are not applied'],
    ["!(object.zz == 'x') || true", 4, 'a call with an error argument is charged'],
    ['object.l.map(x, x)', 29, 'range 2 + 2 × (accu 1 + x 1 + list 10 + add 1) + result 1'],
    ['optional.of(1).orValue(2)', 1, 'orValue short-circuits at no cost'],
    ['size(object.l)', 3, 'size is a call of 1'],
    ["object.a.b == 'x'", 4, 'equality: ceil(0.1 × min size)'],
  ];
  for (const [expr, want, why] of cases) {
    it(`${expr} costs ${want} (${why})`, () => expect(cost(expr)).toBe(want));
  }
});
