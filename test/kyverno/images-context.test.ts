/**
 * The `images` context variable of a resource with no image (src/kyverno/context/images.ts): Kyverno
 * adds no `images` entry then (addImageInfos in pkg/engine/context/context.go returns when it found
 * none), so `images` is an unknown key (null where a query tolerates it), not an empty map. A resource
 * with images gets them, by container list and name.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const configMap: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { image: 'nginx:1.0' } };

async function annotationsAfter(value: string, subject: JsonObject, kinds = ['Pod', 'ConfigMap']) {
  const policy = clusterPolicy('images', [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { annotations: { images: value } } } } }], { background: false });
  (policy.spec as { rules: JsonObject[] }).rules[0].match = { any: [{ resources: { kinds } }] };
  const kind = String(subject.kind);
  const request = podRequest(subject, { kind: { group: '', version: 'v1', kind }, resource: { group: '', version: 'v1', resource: kind.toLowerCase() + 's' } });
  const result = await runKyvernoPolicies([compiled(policy)], { request });
  const [outcome] = result.policies.flatMap((p) => p.rules);
  return { outcome, annotations: ((result.object as JsonObject).metadata as JsonObject).annotations as JsonObject | undefined };
}

describe('the images context of a resource without images', () => {
  it('is no entry at all: null to a tolerant query, where an empty map would read "{}"', async () => {
    for (const subject of [configMap, pod('empty', []), { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare', namespace: 'default' }, spec: {} }]) {
      const { outcome, annotations } = await annotationsAfter('{{ to_string(images) }}', subject);
      expect(outcome.status, String((subject.metadata as JsonObject).name)).toBe('applied');
      expect(annotations).toEqual({ images: 'null' });
    }
  });

  it('reading it fails the rule as an unknown key, as any variable with no value does', async () => {
    const { outcome } = await annotationsAfter('{{ images }}', configMap);
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain('Unknown key "images" in path');
  });

  it('a Pod with images still has them, by list and container name', async () => {
    const { annotations } = await annotationsAfter('{{ images.containers.app.registry }}/{{ images.containers.app.tag }}', pod('p', ['app']));
    expect(annotations).toEqual({ images: 'registry.example.com/1.0' });
  });
});
