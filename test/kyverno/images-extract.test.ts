/**
 * The `images` context follows the walk of Kyverno's extract (pkg/utils/api/image.go @ 111e07bbecc6)
 * on resources the API server would not send but a resource file for `amender apply` may hold: a null
 * container is no container (extract returns at `obj == nil` before asking for a map), a container list
 * written as a map has its values read (`case map[string]interface{}`), keyed in the pointer by their key,
 * a list that is neither is `invalid type`, and a field on the way to it that is not a map is
 * `invalid image config`. Such an error fails the queries that read `images`, as Kyverno's loader does.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, podRequest } from './helpers/requests.js';

async function imagesOf(kind: string, spec: JsonValue) {
  const policy = clusterPolicy('images', [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { annotations: { images: '{{ to_string(images) }}' } } } } }], {
    background: false,
  });
  (policy.spec as { rules: JsonObject[] }).rules[0].match = { any: [{ resources: { kinds: [kind] } }] };
  const subject: JsonObject = { apiVersion: 'v1', kind, metadata: { name: 'x', namespace: 'default' }, spec };
  const request = podRequest(subject, { kind: { group: '', version: 'v1', kind }, resource: { group: '', version: 'v1', resource: kind.toLowerCase() + 's' } });
  const result = await runKyvernoPolicies([compiled(policy)], { request });
  const [outcome] = result.policies.flatMap((p) => p.rules);
  const annotations = ((result.object as JsonObject).metadata as JsonObject).annotations as JsonObject | undefined;
  return { status: outcome.status, message: outcome.message, images: annotations ? JSON.parse(String(annotations.images)) : undefined };
}

const nginx = {
  registry: 'docker.io',
  path: 'nginx',
  name: 'nginx',
  tag: 'latest',
  reference: 'docker.io/nginx:latest',
  referenceWithTag: 'docker.io/nginx:latest',
};

describe('images of a resource Kyverno reads in its own way', () => {
  it('skips a null container', async () => {
    const r = await imagesOf('Pod', { containers: [null, { name: 'a', image: 'nginx' }] });
    expect(r.status).toBe('applied');
    expect(r.images).toEqual({ containers: { a: { ...nginx, jsonPointer: '/spec/containers/1/image' } } });
  });

  it('reads a container list written as a map, keyed by its keys', async () => {
    const r = await imagesOf('Deployment', { template: { spec: { initContainers: { first: { name: 'a', image: 'nginx' } } } } });
    expect(r.status).toBe('applied');
    expect(r.images).toEqual({ initContainers: { a: { ...nginx, jsonPointer: '/spec/template/spec/initContainers/first/image' } } });
  });

  it('fails a query of images when the list is neither a list nor a map', async () => {
    const r = await imagesOf('Pod', { containers: 'nginx' });
    expect(r.status).toBe('error');
    expect(r.message).toContain('invalid type');
  });

  it('fails a query of images when a field on the way is not a map', async () => {
    for (const [kind, spec] of [
      ['Pod', ['nginx']],
      ['Deployment', { template: 'nginx' }],
      ['CronJob', { jobTemplate: { spec: { template: { spec: 7 } } } }],
    ] as [string, JsonValue][]) {
      const r = await imagesOf(kind, spec);
      expect(r.status, kind).toBe('error');
      expect(r.message, kind).toContain('invalid image config');
    }
  });

  it('has no images when a field on the way is missing or null', async () => {
    for (const spec of [{ template: null }, { template: { spec: { containers: null } } }, {}] as JsonValue[]) {
      const r = await imagesOf('Deployment', spec);
      expect(r.status).toBe('applied');
      expect(r.images).toBeNull();
    }
  });
});
