/**
 * `variables.?name` and `has(variables.name)` as kube-apiserver answers them. There `variables` is a
 * lazy.MapValue (apiserver pkg/cel/lazy/lazy.go), a cel-go Mapper: an optional select or a presence test
 * calls Find, which evaluates the variable (interpreter/attributes.go refQualify), so a declared variable
 * is optional.of(its value), and one that fails makes both fail with its error.
 */
import { describe, expect, it } from 'vitest';
import { CompiledVariables, Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression } from '../../../src/cel/index.js';

const vars = CompiledVariables.compile(
  [
    { name: 'replicas', expression: '3' },
    { name: 'broken', expression: '1 / 0 == 1' },
  ],
  { params: false },
);

function run(expression: string): unknown {
  const c = compileExpression(expression, 'variable', vars.scope());
  if (!c.ok) throw new Error(c.message);
  const r = new Evaluation({ object: {} }, { budget: RUNTIME_CEL_COST_BUDGET, variables: vars }).evaluate(c.compiled);
  return r.ok ? r.value : r.message.replace(/^expression '[\s\S]*' resulted in error: /, 'error: ');
}

describe('optional select and presence on variables', () => {
  it('variables.?name is the variable as an optional', () => {
    expect(run('variables.?replicas.orValue(1)')).toBe(3n);
    expect(run('variables.?replicas.hasValue()')).toBe(true);
    expect(run('dyn(variables).?replicas.orValue(1)')).toBe(3n);
  });

  it('a variable that fails to evaluate fails its optional select and its presence test', () => {
    const failure = 'error: composited variable "broken" fails to evaluate: division by zero';
    expect(run('variables.?broken.orValue(true)')).toBe(failure);
    expect(run('has(variables.broken)')).toBe(failure);
    expect(run('has(variables.replicas)')).toBe(true);
  });

  it("'name' in dyn(variables) is no such overload: the lazy map's type is no Container", () => {
    // cel-go inAggregate (common/stdlib/standard.go) asks rhs.Type().HasTrait(ContainerType); lazy.go's
    // NewMapValue gives its type Indexer | FieldTester | Iterable only.
    expect(run("'replicas' in dyn(variables)")).toBe('error: no such overload');
  });

  it('variables equals itself only; against another value == is no such overload (lazy.go Equal)', () => {
    expect(run('dyn(variables) == dyn(variables)')).toBe(true);
    expect(run('dyn(variables) == {}')).toBe('error: no such overload');
    expect(run('dyn(variables) != {}')).toBe(true);
  });

  it('a comprehension over dyn(variables) ranges over the names in order, and reads values in the two-variable forms', () => {
    // lazy.go: the type is Iterable (the iterator walks knownValues) and the value a Mapper (cel-go evalFold).
    expect(run('dyn(variables).map(name, name)')).toEqual(['replicas', 'broken']);
    expect(run("dyn(variables).exists(name, value, name == 'replicas' && value == 3)")).toBe(true);
    expect(run('dyn(variables).all(name, value, value != null)')).toBe('error: composited variable "broken" fails to evaluate: division by zero');
  });
});
