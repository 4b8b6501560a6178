/**
 * Image references (src/kyverno/go/image.ts): one reader for the `images` context and `image_normalize`,
 * as Kyverno's GetImageInfo reads them with distribution/reference. The engine's former copy used a
 * loose pattern: it accepted digests of the wrong length or case and refused IPv6 registries.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json/index.js';
import { runKyvernoPolicies } from '../../../src/kyverno/index.js';
import { evaluate } from '../../../src/kyverno/jmespath/index.js';
import { clusterPolicy, compiled, podRequest } from '../helpers/requests.js';

const HEX64 = '0123456789abcdef'.repeat(4);

/** The `images` entry of the container `web` as a rule sees it ('none' when there is none). */
async function imageEntry(image: string): Promise<string> {
  const policy = compiled(
    clusterPolicy('images', [
      {
        name: 'describe',
        mutate: {
          patchStrategicMerge: {
            metadata: { annotations: { image: "{{ to_string(images.containers.web || 'none') }}" } },
          },
        },
      },
    ]),
  );
  const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'web', image }] } };
  const result = await runKyvernoPolicies([policy], { request: podRequest(pod) });
  const annotations = ((result.object as JsonObject).metadata as JsonObject).annotations as JsonObject;
  return annotations.image as string;
}

/** The outcomes of one rule writing `text` into an annotation of a Pod whose container `web` runs `image`. */
async function describeRules(image: string, text: string, more: JsonObject[] = []) {
  const policy = compiled(clusterPolicy('images', [{ name: 'describe', mutate: { patchStrategicMerge: { metadata: { annotations: { x: text } } } } }]));
  const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'web', image }, ...more] } };
  const result = await runKyvernoPolicies([policy], { request: podRequest(pod) });
  return result.policies.flatMap((p) => p.rules);
}

describe('the images context', () => {
  it('describes a valid reference', async () => {
    expect(JSON.parse(await imageEntry(`nginx@sha256:${HEX64}`))).toEqual({
      registry: 'docker.io',
      path: 'nginx',
      name: 'nginx',
      digest: `sha256:${HEX64}`,
      reference: `docker.io/nginx@sha256:${HEX64}`,
      referenceWithTag: 'docker.io/nginx:',
      jsonPointer: '/spec/containers/0/image',
    });
  });
  // pkg/utils/image/infos_test.go Test_GetImageInfo, Test_ReferenceAndReferenceWithTag (default registry
  // docker.io). Kyverno turns its ImageInfo into a map by its JSON tags, and registry, tag and digest are
  // `omitempty`: an image without a digest has no `digest` key, one with only a digest no `tag`.
  it.each([
    ['nginx', { name: 'nginx', path: 'nginx', registry: 'docker.io', tag: 'latest', reference: 'docker.io/nginx:latest', referenceWithTag: 'docker.io/nginx:latest' }],
    ['nginx:v10.3', { name: 'nginx', path: 'nginx', registry: 'docker.io', tag: 'v10.3', reference: 'docker.io/nginx:v10.3', referenceWithTag: 'docker.io/nginx:v10.3' }],
    ['docker.io/test/nginx:v10.3', { name: 'nginx', path: 'test/nginx', registry: 'docker.io', tag: 'v10.3', reference: 'docker.io/test/nginx:v10.3', referenceWithTag: 'docker.io/test/nginx:v10.3' }],
    ['test/nginx', { name: 'nginx', path: 'test/nginx', registry: 'docker.io', tag: 'latest', reference: 'docker.io/test/nginx:latest', referenceWithTag: 'docker.io/test/nginx:latest' }],
    ['localhost:4443/test/nginx', { name: 'nginx', path: 'test/nginx', registry: 'localhost:4443', tag: 'latest', reference: 'localhost:4443/test/nginx:latest', referenceWithTag: 'localhost:4443/test/nginx:latest' }],
    [
      'docker.io/test/centos@sha256:dead07b4d8ed7e29e98de0f4504d87e8880d4347859d839686a31da35a3b532f',
      {
        name: 'centos',
        path: 'test/centos',
        registry: 'docker.io',
        digest: 'sha256:dead07b4d8ed7e29e98de0f4504d87e8880d4347859d839686a31da35a3b532f',
        reference: 'docker.io/test/centos@sha256:dead07b4d8ed7e29e98de0f4504d87e8880d4347859d839686a31da35a3b532f',
        referenceWithTag: 'docker.io/test/centos:',
      },
    ],
  ])('describes %s as Kyverno does, empty fields left out', async (image, expected) => {
    expect(JSON.parse(await imageEntry(image))).toEqual({ ...expected, jsonPointer: '/spec/containers/0/image' });
  });
  it('reading the digest of an image without one is an unknown key, as in Kyverno (the rule errors)', async () => {
    const policy = compiled(
      clusterPolicy('images', [{ name: 'digest', mutate: { patchStrategicMerge: { metadata: { annotations: { d: '{{ images.containers.web.digest }}' } } } } }]),
    );
    const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } };
    const result = await runKyvernoPolicies([policy], { request: podRequest(pod) });
    const [rule] = result.policies.flatMap((p) => p.rules);
    expect(rule.status).toBe('error');
    expect(rule.message).toContain('Unknown key "digest"');
  });
  it('fails the queries that read images when a container image is not a reference, as Kyverno (its images loader fails)', async () => {
    // A digest of the wrong length or in upper case is no reference (the engine once kept such images).
    for (const image of [`nginx@sha256:${HEX64.slice(0, 40)}`, `nginx@sha256:${HEX64.toUpperCase()}`]) {
      const [rule] = await describeRules(image, "{{ to_string(images.containers.web || 'none') }}");
      expect(rule.status).toBe('error');
      expect(rule.message).toContain(`invalid image '${image}' (bad image: docker.io/${image}, defaultRegistry: docker.io, enableDefaultRegistryMutation: true: `);
    }
    // The failure is the whole images entry's, not one container's; queries not naming images still run.
    const [other] = await describeRules(`nginx@sha256:${HEX64.slice(0, 40)}`, '{{ images.containers.sidecar.tag }}', [{ name: 'sidecar', image: 'busybox:1.36' }]);
    expect(other.status).toBe('error');
    const [unrelated] = await describeRules(`nginx@sha256:${HEX64.slice(0, 40)}`, '{{ request.object.metadata.name }}');
    expect(unrelated.status).toBe('applied');
  });
  it('has no images for kinds Kyverno has no extractor for, and a container without a name fails the load', async () => {
    const policy = compiled({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'images' },
      spec: {
        rules: [
          {
            name: 'describe',
            match: { any: [{ resources: { kinds: ['example.com/v1/Widget'] } }] },
            mutate: { patchStrategicMerge: { metadata: { annotations: { image: "{{ to_string(images.containers.web || 'none') }}" } } } },
          },
        ],
      },
    });
    const widget: JsonObject = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
      spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    };
    const request = { ...podRequest(widget), kind: { group: 'example.com', version: 'v1', kind: 'Widget' }, resource: { group: 'example.com', version: 'v1', resource: 'widgets' } };
    const result = await runKyvernoPolicies([policy], { request });
    expect(((result.object as JsonObject).metadata as JsonObject).annotations).toEqual({ image: 'none' });
    const [unnamed] = await describeRules('nginx', '{{ images.containers.web.tag }}', [{ image: 'busybox' }]);
    expect(unnamed.status).toBe('error');
    expect(unnamed.message).toContain('invalid key');
  });
  it('reads IPv6 registries (the engine refused them)', async () => {
    expect(JSON.parse(await imageEntry('[::1]:5000/app:1.0'))).toMatchObject({ registry: '[::1]:5000', path: 'app', tag: '1.0' });
  });
});

describe('image_normalize reads references the same way', () => {
  it('agrees with the images context', () => {
    expect(evaluate("image_normalize('[::1]:5000/app')", {})).toEqual({ ok: true, value: '[::1]:5000/app:latest' });
    const r = evaluate(`image_normalize('nginx@sha256:${HEX64.slice(0, 40)}')`, {});
    expect(r.ok ? r.value : r.error.message).toContain('invalid checksum digest length');
  });
});

describe('images is read from the object the review received', () => {
  it("a rule or policy that changes an image leaves `images` as it was (Kyverno's webhook loads it from the request's object)", async () => {
    const mirror = compiled(
      clusterPolicy('a-mirror', [
        { name: 'mirror', mutate: { patchesJson6902: '- op: replace\n  path: /spec/containers/0/image\n  value: mirror.example.com/app:2.0' } },
        { name: 'same-policy', mutate: { patchStrategicMerge: { metadata: { annotations: { first: '{{ images.containers.web.registry }}' } } } } },
      ]),
    );
    const report = compiled(
      clusterPolicy('b-report', [{ name: 'report', mutate: { patchStrategicMerge: { metadata: { annotations: { second: '{{ images.containers.web.reference }}' } } } } }]),
    );
    const subject: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } };
    const result = await runKyvernoPolicies([mirror, report], { request: podRequest(subject) });
    const object = result.object as JsonObject;
    expect(((object.spec as JsonObject).containers as JsonObject[])[0].image).toBe('mirror.example.com/app:2.0');
    expect((object.metadata as JsonObject).annotations).toEqual({ first: 'docker.io', second: 'docker.io/nginx:1.27' });
  });
});
