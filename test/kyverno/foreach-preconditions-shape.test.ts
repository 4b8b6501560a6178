/**
 * A foreach entry's preconditions are typed in Kyverno's API, where a rule's are free-form JSON:
 * - the legacy list form is refused in any entry (top level: the CRD schema says `type: object`; nested:
 *   api/kyverno/v1/wrappers.go ForEachMutationWrapper.UnmarshalJSON fails on it);
 * - a top-level entry's operators are the CRD enum (config/crds/kyverno/kyverno.io_clusterpolicies.yaml,
 *   mutate.foreach[].preconditions), which leaves out the deprecated `Equal` / `NotEqual` that policy
 *   validation (operator.IsOperatorValid) accepts in a rule's preconditions and in nested entries.
 * And a condition's `message` is a string wherever it stands (Go decodes it into one; ConditionsWrapper
 * refuses a rule's preconditions that decode neither as a list nor as any/all).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';

const policy = (mutate: JsonObject, preconditions?: JsonValue): JsonObject => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p' },
  spec: {
    rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, ...(preconditions ? { preconditions } : {}), mutate }],
  },
});
const patch = { patchStrategicMerge: { metadata: { labels: { '{{ element.name }}': 'seen' } } } };
const entry = (preconditions: JsonValue): JsonObject => ({ list: 'request.object.spec.containers', preconditions, ...patch });
const nested = (preconditions: JsonValue): JsonObject => ({ list: 'request.object.spec.containers', foreach: [entry(preconditions)] });
const condition = (operator: string, key = '{{ element.name }}') => ({ key, operator, value: 'a' });
const ruleCondition = (operator: string) => condition(operator, '{{ request.object.metadata.name }}');

function problems(document: JsonObject) {
  const result = compileKyvernoPolicy(document);
  return result.ok ? [] : result.problems;
}

describe("a foreach entry's preconditions", () => {
  it('may not be a list of conditions, at any level', () => {
    expect(problems(policy({ foreach: [entry([condition('Equals')])] }))).toEqual([
      { path: 'spec.rules[0].mutate.foreach[0].preconditions', message: expect.stringMatching(/must be an object with any\/all/) },
    ]);
    expect(problems(policy({ foreach: [nested([condition('Equals')])] }))).toEqual([
      { path: 'spec.rules[0].mutate.foreach[0].foreach[0].preconditions', message: expect.stringMatching(/must be an object with any\/all/) },
    ]);
  });
  it('take the operators of the CRD enum at the top level: not Equal or NotEqual', () => {
    for (const op of ['Equal', 'NotEqual']) {
      expect(problems(policy({ foreach: [entry({ all: [condition(op)] })] }))).toEqual([
        { path: 'spec.rules[0].mutate.foreach[0].preconditions.all[0].operator', message: expect.stringContaining(`use ${op}s`) },
      ]);
    }
  });
  it('hold a string message, as a rule\'s do', () => {
    expect(problems(policy({ foreach: [entry({ all: [{ ...condition('Equals'), message: 5 }] })] }))).toEqual([
      { path: 'spec.rules[0].mutate.foreach[0].preconditions.all[0].message', message: 'must be a string' },
    ]);
    expect(problems(policy({ patchStrategicMerge: { metadata: { labels: { a: 'b' } } } }, [{ ...ruleCondition('Equals'), message: { m: 1 } }]))).toEqual([
      { path: 'spec.rules[0].preconditions[0].message', message: 'must be a string' },
    ]);
  });
  it('keep what Kyverno accepts', () => {
    expect(problems(policy({ foreach: [entry({ any: [condition('Equals'), condition('NotEquals')] })] }))).toEqual([]);
    // a nested entry is schemaless in the CRD: policy validation's operator names apply
    expect(problems(policy({ foreach: [nested({ all: [condition('Equal')] })] }))).toEqual([]);
    // a rule's preconditions are free-form: the list form and the deprecated names stay accepted
    expect(problems(policy({ foreach: [entry({ all: [condition('Equals')] })] }, [ruleCondition('NotEqual')]))).toEqual([]);
    expect(problems(policy({ patchStrategicMerge: { metadata: { labels: { a: 'b' } } } }, { any: [ruleCondition('Equal')] }))).toEqual([]);
  });
});
