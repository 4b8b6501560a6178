/**
 * Kyverno's extract (pkg/utils/api/image.go) skips a container whose image is blank by Go's
 * strings.TrimSpace, whose spaces are unicode.IsSpace's: U+0085 is one (the container is skipped), U+FEFF
 * is not (the image is read, and refused as no reference, failing the queries of `images`).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, podRequest } from './helpers/requests.js';

async function run(image: string) {
  const policy = clusterPolicy('images', [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { annotations: { images: '{{ to_string(images) }}' } } } } }], { background: false });
  const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'default' }, spec: { containers: [{ name: 'c', image }, { name: 'd', image: 'nginx' }] } };
  const result = await runKyvernoPolicies([compiled(policy)], { request: podRequest(pod) });
  const [outcome] = result.policies.flatMap((p) => p.rules);
  return outcome;
}

describe("images: a blank image by Go's TrimSpace", () => {
  it('U+0085 alone is blank: that container has no image', async () => {
    const outcome = await run('\u0085');
    expect(outcome.status).toBe('applied');
  });
  it('U+FEFF alone is no space: the image is read and is no reference', async () => {
    const outcome = await run('\uFEFF');
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain("invalid image '\uFEFF'");
  });
});
