/**
 * An expression reference (`&expr`) outside the function argument that wants one is a Go `expRef` struct
 * in go-jmespath (functions.go), whose one field is unexported: encoding/json writes it `{}` (to_string,
 * a JMESPath result Kyverno marshals or inserts into a string), and jpfType and jpfToNumber, which know
 * the six JSON types only, fail with 'unknown type'.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';
import { JsonContext } from '../../../src/kyverno/context/context.js';
import { kyvernoQuery } from '../../../src/kyverno/context/query.js';
import { substituteAll } from '../../../src/kyverno/context/variables.js';

const value = (expression: string) => {
  const r = evaluate(expression, { a: 1 });
  return r.ok ? r.value : `error: ${r.error.message}`;
};

describe('expression references as values', () => {
  it.each([
    ['to_string(&a)', '{}'],
    ['&a', {}],
    ['[&a, `1`]', [{}, 1]],
    ['{x: &a}', { x: {} }],
    ['to_array(&a)', [{}]],
    ['not_null(&a)', {}],
    ['map(& &a, [`1`])', [{}]],
    ['type(&a)', 'error: unknown type'],
    ['to_number(&a)', 'error: unknown type'],
  ])('%s', (expression, expected) => {
    expect(value(expression)).toEqual(expected);
  });

  it('inserted into a string as Kyverno marshals it', () => {
    const scope = { ctx: new JsonContext(kyvernoQuery, { a: 1 }), isDelete: false };
    expect(substituteAll('x{{ &a }}', scope)).toBe('x{}');
    expect(substituteAll('{{ [&a] }}', scope)).toEqual([{}]);
  });
});
