/**
 * A configMap context entry's load errors read as Kyverno's loader words them
 * (pkg/engine/context/loaders/configmap.go): LoadData's `failed to retrieve config map for context entry
 * <name>: …` around fetchConfigMap's `failed to substitute variables in context <name> configMap.<field>
 * <text>: <error>` (or `expected string, got <%T>`), the namespace check of a Policy, and `failed to get
 * configmap <ns>/<name> : <resolver error>`, where Amender's resolver is the policy sources.
 * The entry loads when a query first names it: here a precondition, before the rule is substituted whole.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

async function message(configMap: JsonObject, namespacedPolicy = false): Promise<string> {
  const rule: JsonObject = {
    name: 'r',
    context: [{ name: 'cm', configMap }],
    preconditions: { all: [{ key: '{{ cm.data.a }}', operator: 'Equals', value: 'x' }] },
    mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } },
  };
  const document = clusterPolicy('p', [rule]);
  if (namespacedPolicy) Object.assign(document, { kind: 'Policy', metadata: { name: 'p', namespace: 'default' } });
  const result = await runKyvernoPolicies([compiled(document)], {
    request: podRequest(pod('web', ['a'])),
    sources: { configMap: (ns, name) => (name === 'settings' ? { data: { a: 'x' }, metadata: { name, namespace: ns } } : undefined) },
  });
  const outcome = result.policies[0].rules[0];
  expect(outcome.status).toBe('error');
  return outcome.message;
}

const AT_KEY = 'failed to evaluate preconditions: failed to substitute variables in condition key: failed to resolve cm.data.a at path : ';
const RETRIEVE = 'failed to retrieve config map for context entry cm: ';

describe('configMap context entry errors', () => {
  it('a ConfigMap the sources do not hold', async () => {
    expect(await message({ name: 'missing', namespace: 'default' })).toBe(
      `${AT_KEY}${RETRIEVE}failed to get configmap default/missing : configmaps "missing" not found among the policy sources`,
    );
  });
  it('a name whose variable fails', async () => {
    expect(await message({ name: '{{ request.object.metadata.nope }}', namespace: 'default' })).toBe(
      `${AT_KEY}${RETRIEVE}failed to substitute variables in context cm configMap.name {{ request.object.metadata.nope }}: failed to resolve request.object.metadata.nope at path : JMESPath query failed: Unknown key "nope" in path`,
    );
  });
  it('a name or namespace that substitutes to no string: its Go type', async () => {
    expect(await message({ name: '{{ request.object.spec.containers }}', namespace: 'default' })).toBe(
      `${AT_KEY}${RETRIEVE}failed to substitute variables in context cm configMap.name {{ request.object.spec.containers }}: expected string, got []interface {}`,
    );
    expect(await message({ name: 'settings', namespace: '{{ request.object.metadata }}' })).toBe(
      `${AT_KEY}${RETRIEVE}failed to substitute variables in context cm configMap.namespace {{ request.object.metadata }}: expected string, got map[string]interface {}`,
    );
  });
  it("a Policy reading another namespace's ConfigMap", async () => {
    expect(await message({ name: 'settings', namespace: 'other' }, true)).toBe(
      `${AT_KEY}${RETRIEVE}context entry cm: configMap namespace "other" is different from policy namespace "default"`,
    );
  });
});
