import { describe, expect, it } from 'vitest';
import { CompiledVariables, Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression } from '../../src/cel/index.js';

/**
 * The static types later expressions see a policy's variables with. kube-apiserver declares each variable
 * as a field of `variables` through convertCelTypeToDeclType (admission/plugin/cel/composition.go): the
 * primitive types, and lists and maps of them, keep their type; a library type, an optional, a struct (the
 * request) or a type value is dyn. Kyverno registers each variable's exact output type.
 */
const definitions = [
  { name: 'q', expression: "quantity('1')" },
  { name: 'qs', expression: "[quantity('1')]" },
  { name: 'byName', expression: "{'a': ip('10.0.0.1')}" },
  { name: 'maybe', expression: 'optional.of(1)' },
  { name: 'req', expression: 'request' },
  { name: 'kind', expression: 'type(1)' },
  { name: 'n', expression: '1' },
  { name: 'names', expression: "{'a': ['x']}" },
  { name: 'when', expression: "timestamp('2024-01-01T00:00:00Z')" },
];
const vars = CompiledVariables.compile(definitions, { params: false });

function typeOf(expression: string, variables = vars): string {
  const r = compileExpression(expression, 'variable', variables.scope());
  return r.ok ? r.compiled.typeName : r.message;
}

function run(expression: string) {
  const r = compileExpression(expression, 'variable', vars.scope());
  if (!r.ok) throw new Error(r.message);
  return new Evaluation({ object: {}, request: { operation: 'CREATE', name: 'x' } }, { budget: RUNTIME_CEL_COST_BUDGET, variables: vars }).evaluate(r.compiled);
}

describe('variable types as kube-apiserver declares them', () => {
  it('keep primitive types and lists and maps of them; other types are dyn', () => {
    expect(definitions.map((d) => typeOf(`variables.${d.name}`))).toEqual([
      'dyn',
      'list(dyn)',
      'map(string, dyn)',
      'dyn',
      'dyn',
      'dyn',
      'int',
      'map(string, list(string))',
      'google.protobuf.Timestamp',
    ]);
  });

  it('so a literal mixing a variable of a library type with that type is not homogeneous', () => {
    expect(typeOf("[variables.q, quantity('2')]")).toMatch(/expected type 'dyn' but found 'kubernetes.Quantity'/);
    expect(typeOf('[variables.q, variables.qs[0]]')).toBe('list(dyn)');
  });

  it('and what a library type refuses fails when evaluated, not when compiled', () => {
    expect(typeOf('variables.q == 1')).toBe('bool');
    expect(run('variables.q == 1')).toMatchObject({ ok: false, kind: 'runtime', message: "expression 'variables.q == 1' resulted in error: no such overload" });
    expect(typeOf('variables.maybe + 1')).toBe('int');
    expect(typeOf('variables.req.noSuchField')).toBe('dyn');
  });

  it('while the values keep their runtime types', () => {
    expect(run("variables.q.isLessThan(quantity('2')) && variables.qs[0].add(1) == quantity('2')")).toMatchObject({ ok: true, value: true });
    expect(run("variables.byName.a.family() == 4 && variables.maybe.orValue(0) == 1 && variables.req.name == 'x'")).toMatchObject({ ok: true, value: true });
  });

  it("Kyverno's dialect keeps each variable's exact type", () => {
    const kyverno = CompiledVariables.compile(definitions, { params: false, dialect: 'kyverno' });
    expect(typeOf('variables.q', kyverno)).toBe('kubernetes.Quantity');
    expect(typeOf('variables.qs', kyverno)).toBe('list(kubernetes.Quantity)');
    expect(typeOf("[variables.q, quantity('2')]", kyverno)).toBe('list(kubernetes.Quantity)');
  });
});
