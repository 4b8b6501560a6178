/**
 * A configMap context entry holds what Kyverno's loader marshals (pkg/engine/context/loaders/
 * configmap.go fetchConfigMap: the typed ConfigMap's Data and ObjectMeta): `data` is null for a
 * ConfigMap without data (a nil map), not {}, and `metadata` always has `creationTimestamp` (null
 * when unset), as metav1.ObjectMeta writes it.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, pod, podRequest } from './helpers/requests.js';

async function annotations(configMap: JsonObject, values: Record<string, string>) {
  const document = clusterPolicy('p', [
    { name: 'r', context: [{ name: 'cm', configMap: { name: 'settings', namespace: 'default' } }], mutate: { patchStrategicMerge: { metadata: { annotations: values } } } },
  ]);
  const compiled = compileKyvernoPolicy(document);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const result = await runKyvernoPolicies([compiled.policy], {
    request: podRequest(pod('web', ['a'])),
    sources: { configMap: (ns, name) => (ns === 'default' && name === 'settings' ? configMap : undefined) },
  });
  expect(result.policies[0].rules[0].status).toBe('applied');
  return ((result.object as JsonObject).metadata as JsonObject).annotations;
}

describe('a configMap entry', () => {
  it('without data: data is null', async () => {
    expect(await annotations({ metadata: { name: 'settings', namespace: 'default' } }, { d: '{{ to_string(cm.data) }}' })).toEqual({ d: 'null' });
  });
  it('with data: the data as written; metadata with creationTimestamp', async () => {
    const cm = { data: { team: 'red' }, metadata: { name: 'settings', namespace: 'default' } };
    expect(await annotations(cm, { d: '{{ to_string(cm.data) }}', m: '{{ to_string(cm.metadata) }}' })).toEqual({
      d: '{"team":"red"}',
      m: '{"creationTimestamp":null,"name":"settings","namespace":"default"}',
    });
  });
});
