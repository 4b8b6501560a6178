/**
 * A variable context entry's load errors read as Kyverno's variable loader words them
 * (pkg/engine/context/loaders/variable.go loadVariable): a field whose variables fail is
 * `failed to substitute variables in context entry <name> <field>: <error>` (the jmesPath's text, a value
 * or default printed by fmt's %s), and a jmesPath that substitutes to anything but a string is
 * `jmespath value must be a string <name> <jmesPath>: <nil>` (the nil error at hand printed with %v).
 * The entry loads when a query first names it: here a precondition, before the rule is substituted whole.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function message(variable: JsonObject): Promise<string> {
  const rule: JsonObject = {
    name: 'r',
    context: [{ name: 'v', variable }],
    preconditions: { all: [{ key: '{{ v }}', operator: 'Equals', value: 'x' }] },
    mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } },
  };
  const result = await runKyvernoPolicies([compiled(clusterPolicy('p', [rule]))], { request: podRequest(pod('web', ['a'])) });
  const outcome = result.policies[0].rules[0];
  expect(outcome.status).toBe('error');
  return outcome.message;
}

const AT_KEY = 'failed to evaluate preconditions: failed to substitute variables in condition key: failed to resolve v at path : ';
const NOPE = 'JMESPath query failed: Unknown key "nope" in path';

describe('variable context entry errors', () => {
  it('a value whose variable fails', async () => {
    expect(await message({ value: '{{ request.object.metadata.nope }}' })).toBe(
      `${AT_KEY}failed to substitute variables in context entry v {{ request.object.metadata.nope }}: failed to resolve request.object.metadata.nope at path : ${NOPE}`,
    );
  });
  it('a map value is printed with %s: numbers and booleans are bad verbs, null inside is <nil>', async () => {
    const value = { z: null, n: 1, l: ['x', 2.5], b: true, a: '{{ request.object.metadata.nope }}' };
    expect(await message({ value })).toBe(
      `${AT_KEY}failed to substitute variables in context entry v map[a:{{ request.object.metadata.nope }} b:%!s(bool=true) l:[x %!s(float64=2.5)] n:%!s(float64=1) z:<nil>]: failed to resolve request.object.metadata.nope at path /a: ${NOPE}`,
    );
  });
  it('a jmesPath whose variable fails', async () => {
    expect(await message({ value: 'x', jmesPath: '{{ request.object.metadata.nope }}' })).toBe(
      `${AT_KEY}failed to substitute variables in context entry v {{ request.object.metadata.nope }}: failed to resolve request.object.metadata.nope at path : ${NOPE}`,
    );
  });
  it('a jmesPath that substitutes to no string', async () => {
    expect(await message({ value: 'x', jmesPath: '{{ request.object.spec.containers }}' })).toBe(
      `${AT_KEY}jmespath value must be a string v {{ request.object.spec.containers }}: <nil>`,
    );
  });
  it('a default whose variable fails (substituted before the value is read)', async () => {
    expect(await message({ value: { a: 1 }, jmesPath: 'a', default: '{{ request.object.metadata.nope }}' })).toBe(
      `${AT_KEY}failed to substitute variables in context entry v {{ request.object.metadata.nope }}: failed to resolve request.object.metadata.nope at path : ${NOPE}`,
    );
  });
});
