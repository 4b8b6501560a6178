/**
 * A precondition whose key resolves to null (lookup() of a missing label): every operator is false,
 * NotEquals and the NotIn forms included. Kyverno's handlers (pkg/engine/variables/operator/*.go)
 * switch on the key's type and answer false in their `default:` case, which nil reaches; NotEquals is
 * not the negation of Equals there.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function applies(operator: string, value: JsonValue, labels: JsonObject = { app: 'x' }): Promise<boolean> {
  const policy = compiled(
    clusterPolicy('null-key', [
      {
        name: 'r',
        preconditions: { all: [{ key: "{{ lookup(request.object.metadata.labels, 'team') }}", operator, value }] },
        mutate: { patchStrategicMerge: { metadata: { annotations: { hit: 'true' } } } },
      },
    ]),
  );
  const subject = pod('p', ['c']);
  (subject.metadata as JsonObject).labels = labels;
  const result = await runKyvernoPolicies([policy], { request: podRequest(subject) });
  expect(result.policies[0]?.status).not.toBe('error');
  return ((result.object as JsonObject).metadata as JsonObject).annotations !== undefined;
}

describe('a null precondition key', () => {
  it('NotEquals is false (Kyverno NotEqualHandler: unsupported key type), so the rule is skipped', async () => {
    expect(await applies('NotEquals', 'blue')).toBe(false);
    expect(await applies('NotEqual', null)).toBe(false);
  });

  it('NotEquals still holds for a present key of another value', async () => {
    expect(await applies('NotEquals', 'blue', { team: 'red' })).toBe(true);
    expect(await applies('NotEquals', 'blue', { team: 'blue' })).toBe(false);
  });

  const operators: [string, JsonValue][] = [
    ['Equals', 'blue'],
    ['Equals', null],
    ['In', ['blue']],
    ['NotIn', ['blue']],
    ['AnyIn', ['blue']],
    ['AllIn', ['blue']],
    ['AnyNotIn', ['blue']],
    ['AllNotIn', ['blue']],
    ['GreaterThan', 1],
    ['LessThanOrEquals', 1],
    ['DurationGreaterThan', '1s'],
    ['DurationLessThan', '1s'],
  ];
  for (const [operator, value] of operators) {
    it(`${operator} ${JSON.stringify(value)} is false`, async () => {
      expect(await applies(operator, value)).toBe(false);
    });
  }
});
