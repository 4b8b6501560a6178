/**
 * A rule does exactly one thing (Kyverno's Rule.ValidateRuleType, api/kyverno/v1/rule_types.go; rule_test.go):
 * a rule whose `mutate` is Go's zero value (`{}`, `patchStrategicMerge: null`, an empty `patchesJson6902`) does
 * nothing, and one with two operations is ambiguous; Kyverno refuses both policies. Before, Amender loaded the
 * first and failed every request the rule matched ("empty mutate rule"), rejecting them under failurePolicy Fail.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';

function problems(rule: JsonObject) {
  const result = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p' },
    spec: { rules: [{ name: 'add-team', match: { any: [{ resources: { kinds: ['Pod'] } }] }, ...rule }] },
  });
  return result.ok ? [] : result.problems;
}

const NONE = "No operation defined in the rule 'add-team'.(supported operations: mutate,validate,generate,verifyImages)";
const MANY = "Multiple operations defined in the rule 'add-team', only one operation (mutate,validate,generate,verifyImages) is allowed per rule";
const PSM = { patchStrategicMerge: { metadata: { labels: { team: 'a' } } } };

describe('the operations of a rule', () => {
  it.each([
    [{ mutate: {} }],
    [{ mutate: { patchStrategicMerge: null } }],
    [{ mutate: { patchesJson6902: '' } }],
    [{ mutate: { mutateExistingOnPolicyUpdate: false } }],
    [{}],
  ])('%j does nothing: refused', (rule) => {
    expect(problems(rule as JsonObject)).toContainEqual({ path: 'spec.rules[0]', message: NONE });
  });

  it('mutate beside validate is refused', () => {
    expect(problems({ mutate: PSM, validate: { pattern: { metadata: { labels: { team: '?*' } } } } })).toContainEqual({ path: 'spec.rules[0]', message: MANY });
  });

  it('one operation is accepted', () => {
    expect(problems({ mutate: PSM })).toEqual([]);
    expect(problems({ mutate: { patchesJson6902: '- op: add\n  path: /metadata/labels/team\n  value: a' } })).toEqual([]);
    expect(problems({ mutate: PSM, validate: {} })).toEqual([]);
  });
});
