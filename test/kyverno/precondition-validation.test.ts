/**
 * A rule's preconditions as Kyverno's policy validation checks them (pkg/validation/policy
 * validateConditions; the condition lists of validate_test.go Test_Validate_*_KeyRequestOperation_*,
 * here as a mutate rule's preconditions): `key` and `value` present, and with the key
 * `{{request.operation}}` only operation names or a `{{ }}` template. `required` findings, so that a
 * policy set refuses the policy as Kyverno does; foreach preconditions are not checked this way (Kyverno
 * checks their operators only).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';

const PSM = { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } };

function policy(preconditions: JsonValue, foreach = false): JsonObject {
  const rule: JsonObject = { name: 'r', match: { any: [{ resources: { kinds: ['ConfigMap'] } }] } };
  if (foreach) rule.mutate = { foreach: [{ list: 'request.object.data', preconditions, ...PSM }] };
  else Object.assign(rule, { preconditions, mutate: PSM });
  return { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { rules: [rule] } };
}

/** The required findings about preconditions (others, such as unknown variables, are not these checks'). */
function refused(document: JsonObject): { path: string; message: string }[] {
  const result = compileKyvernoPolicy(document);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.findings.filter((f) => f.kind === 'required' && f.path.includes('preconditions')).map(({ path, message }) => ({ path, message }));
}

const op = (operator: string, value: JsonValue, key: JsonValue = '{{request.operation}}') => ({ key, operator, value });

describe('rule preconditions Kyverno refuses', () => {
  it('accepts operation names, lists of them and templates (…_ExpectedValue, …_ExpectedItem, …_RightfullyTemplatizedValue)', () => {
    const conditions = [
      op('Equals', 'DELETE'),
      op('NotEquals', 'CREATE'),
      op('NotEquals', 'CONNECT'),
      op('NotEquals', 'UPDATE', '{{ request.operation }}'),
      op('Equals', '2', '{{lbServiceCount}}'),
      op('AnyIn', ['CREATE', 'DELETE', 'CONNECT']),
      op('Equals', '{{ "ops-cm".data."deny-ops"}}'),
    ];
    expect(refused(policy(conditions))).toEqual([]);
    expect(refused(policy({ any: conditions }))).toEqual([]);
  });

  it.each([
    ['an unknown operation', [op('Equals', 'foobar')], 'spec.rules[0].preconditions[0].value', /unknown value 'foobar'/],
    ['a lower-case operation', { all: [op('Equals', 'create')] }, 'spec.rules[0].preconditions.all[0].value', /unknown value 'create'/],
    ['an unknown item (…_UnknownItem)', { any: [op('AnyIn', ['CREATE', 'foobar'])] }, 'spec.rules[0].preconditions.any[0].value[1]', /unknown value 'foobar'/],
    ['a non-string item (…_NonStringItem)', [op('AnyIn', [1, 2])], 'spec.rules[0].preconditions[0].value[0]', /expected to be strings/],
    ['a template not closed (…_WrongfullyTemplatizedValue)', [op('Equals', '{{ "ops-cm".data."deny-ops" }')], 'spec.rules[0].preconditions[0].value', /unknown value/],
    ['a number', [op('Equals', 1)], 'spec.rules[0].preconditions[0].value', /either in the form of a string or list/],
    ['a missing value', { any: [{ key: '{{ request.object.metadata.name }}', operator: 'Equals' }] }, 'spec.rules[0].preconditions.any[0]', /`key`, `value` or `operator` is missing/],
    ['a null key', { all: [{ key: null, operator: 'Equals', value: 'a' }] }, 'spec.rules[0].preconditions.all[0]', /`key`, `value` or `operator` is missing/],
  ] as const)('%s', (_, preconditions, path, message) => {
    expect(refused(policy(preconditions as unknown as JsonValue))).toEqual([{ path, message: expect.stringMatching(message) }]);
  });

  it('leaves foreach preconditions to the operator check, as Kyverno does', () => {
    expect(refused(policy({ any: [op('Equals', 'foobar')] }, true))).toEqual([]);
  });

  it('a policy set refuses such a policy', () => {
    const set = buildPolicySet(parseDocuments('p.json', JSON.stringify(policy({ any: [op('Equals', 'PATCH')] }))));
    expect(set.kyvernoPolicies.length).toBe(0);
    expect(set.problems.map((p) => p.message).join('\n')).toMatch(/unknown value 'PATCH'/);
  });
});

describe('condition operators are spelled as Kyverno spells them', () => {
  const compile = (operator: string, foreach: boolean) => compileKyvernoPolicy(policy({ any: [{ key: 'a', operator, value: 'a' }] }, foreach));
  it.each(['equals', 'EQUALS', 'anyin', 'Anyin', 'greaterthan'])('%s is refused (operator.IsOperatorValid is exact)', (operator) => {
    for (const foreach of [false, true]) {
      const result = compile(operator, foreach);
      expect(result.ok, `${operator} foreach=${foreach}`).toBe(false);
      if (!result.ok) expect(result.problems.map((p) => p.message).join('\n')).toMatch(new RegExp(`unknown operator "${operator}"`));
    }
  });
  it.each(['Equals', 'Equal', 'NotEquals', 'NotEqual', 'In', 'AnyIn', 'AllNotIn', 'GreaterThanOrEquals', 'DurationLessThan'])('%s is accepted', (operator) => {
    expect(compile(operator, false).ok).toBe(true);
    // the CRD's enum for a foreach entry's operators has no deprecated Equal / NotEqual (foreach-preconditions-shape.test.ts)
    expect(compile(operator, true).ok).toBe(operator !== 'Equal' && operator !== 'NotEqual');
  });
});
