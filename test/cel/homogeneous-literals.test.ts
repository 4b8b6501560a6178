/**
 * Kubernetes' homogeneous aggregate literals (environment/base.go: cel.HomogeneousAggregateLiterals(),
 * cel.ValidateHomogeneousAggregateLiterals()): cel-go's validator (cel/validator.go) runs after the
 * checker and wants every list element, map key and map value of a literal to have a type *equivalent*
 * to the first one's (Type.IsEquivalentType), not merely assignable: dyn mixes with nothing but dyn.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation, type CelValue } from '../../src/cel/index.js';

const object = { metadata: { name: 'web', labels: { app: 'web' } } };

function first(expression: string, dialect: 'kubernetes' | 'kyverno' = 'kubernetes'): string | { value: CelValue } {
  const r = compileExpression(expression, 'variable', { params: false, dialect });
  if (!r.ok) return r.message.split('\n')[0].replace(/^compilation failed: ERROR: <input>:1:/, '');
  const out = new Evaluation({ object: object as never }, { budget: 10_000_000 }).evaluate(r.compiled);
  return out.ok ? { value: out.value } : `runtime: ${out.message}`;
}

describe('homogeneous aggregate literals', () => {
  it('a dyn element and a typed one do not mix, whichever comes first', () => {
    for (const dialect of ['kubernetes', 'kyverno'] as const) {
      expect(first("[object.metadata.name, 'a']", dialect)).toBe("24: expected type 'dyn' but found 'string'");
      expect(first("object.metadata.name in ['a', object.metadata.name]", dialect)).toBe("46: expected type 'string' but found 'dyn'");
      expect(first("{'a': 'b', 'c': object.metadata.name}", dialect)).toBe("32: expected type 'string' but found 'dyn'");
      expect(first("[1, dyn(2)]", dialect)).toBe("8: expected type 'int' but found 'dyn'");
      expect(first("[[dyn(1)], ['a']]", dialect)).toBe("12: expected type 'list(dyn)' but found 'list(string)'");
    }
  });

  it('types that are assignable but not the same are refused as well', () => {
    expect(first('[1, 2.0]')).toBe("5: expected type 'int' but found 'double'");
    expect(first("[null, 'a']")).toBe("8: expected type 'null_type' but found 'string'");
  });

  it('the same types, all dyn, optional elements by their value type, and format arguments pass', () => {
    expect(first('[object.metadata.name, object.metadata.labels.app]')).toEqual({ value: ['web', 'web'] });
    expect(first("{'n': object.metadata.name, 'a': dyn('x')}")).toEqual({ value: new Map([['n', 'web'], ['a', 'x']]) });
    expect(first("[string(object.metadata.name), 'a']")).toEqual({ value: ['web', 'a'] });
    expect(first("[?optional.of('a'), 'b']")).toEqual({ value: ['a', 'b'] });
    expect(first("[[], ['a']]")).toEqual({ value: [[], ['a']] });
    expect(first("'%s-%d'.format([object.metadata.name, 1])")).toEqual({ value: 'web-1' });
  });

  it('every mismatching key and value of a map literal is reported', () => {
    const r = compileExpression("{'a': 1, 2: 'b', 'c': 3}", 'variable', { params: false });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message.match(/ERROR: <input>:1:\d+: [^\n]*/g)).toEqual([
      "ERROR: <input>:1:10: expected type 'string' but found 'int'",
      "ERROR: <input>:1:13: expected type 'int' but found 'string'",
    ]);
  });
});
