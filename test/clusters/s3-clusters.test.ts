/**
 * Two clusters whose sources are two prefixes of one bucket on one S3 endpoint (s3rver on loopback):
 * each answers from its own set, and one's broken prefix leaves the other alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterRegistry, hashSecret, readClustersConfig } from '../../src/clusters/index.js';
import { createApp, fixedPolicySet, type AmenderApp } from '../../src/server/index.js';
import { nodeSourceResolvers } from '../../src/sources/node/index.js';
import { buildPolicySet } from '../../src/policyset/index.js';
import { CORRUPT_YAML, labelPolicy, patchOf, podReview, startS3, type TestS3 } from '../sources/helpers.js';

let s3: TestS3;
let registry: ClusterRegistry;
let amender: AmenderApp;
const SECRET = { east: 'e'.repeat(40) + '0123456789abcdef', west: 'f'.repeat(40) + '0123456789abcdef' };

beforeAll(async () => {
  s3 = await startS3();
  await s3.put('clusters/east/label.yaml', labelPolicy('region', 'region', 'east'));
  await s3.put('clusters/west/label.yaml', labelPolicy('region', 'region', 'west'));
  await s3.put('clusters/west/owner.yaml', labelPolicy('owner', 'owner', 'west-team'));
  const env = {
    AMENDER_CLUSTERS: 'east,west',
    AMENDER_CLUSTER_EAST_SOURCES: 's3://policies/clusters/east',
    AMENDER_CLUSTER_EAST_SECRET_HASHES: await hashSecret(SECRET.east),
    AMENDER_CLUSTER_WEST_SOURCES: 's3://policies/clusters/west',
    AMENDER_CLUSTER_WEST_SECRET_HASHES: await hashSecret(SECRET.west),
  };
  registry = ClusterRegistry.create(readClustersConfig(env), { resolvers: nodeSourceResolvers({ env, s3Client: s3.client }) });
  amender = createApp({ policies: fixedPolicySet(buildPolicySet([]), 'empty'), clusters: registry });
});

afterAll(async () => {
  registry?.stop();
  await s3?.dispose();
});

async function mutate(cluster: 'east' | 'west') {
  const res = await amender.app.fetch(
    new Request(`https://amender.test/clusters/${cluster}/mutate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET[cluster]}` },
      body: JSON.stringify(podReview()),
    }),
  );
  expect(res.status).toBe(200);
  return patchOf((await res.json()) as { response?: { patch?: string } });
}

describe('two clusters on one S3 endpoint', () => {
  it('serve different results from their own prefixes', async () => {
    const results = await registry.refreshAll();
    expect([...results.values()].map((r) => r.outcome)).toEqual(['applied', 'applied']);
    expect(await mutate('east')).toEqual([{ op: 'add', path: '/metadata/labels/region', value: 'east' }]);
    expect(await mutate('west')).toEqual([
      { op: 'add', path: '/metadata/labels/owner', value: 'west-team' },
      { op: 'add', path: '/metadata/labels/region', value: 'west' },
    ]);
  });

  it('refresh independently, and one cluster’s corrupt or unreadable prefix never touches the other', async () => {
    await s3.put('clusters/east/label.yaml', labelPolicy('region', 'region', 'east-2'));
    await s3.put('clusters/west/broken.yaml', CORRUPT_YAML);
    s3.requests.length = 0;
    const results = await registry.refreshAll();
    expect(results.get('east')).toMatchObject({ outcome: 'applied', fetched: 1 });
    expect(results.get('west')).toMatchObject({ outcome: 'applied', fetched: 1, skipped: 2 });
    expect(await mutate('east')).toEqual([{ op: 'add', path: '/metadata/labels/region', value: 'east-2' }]);
    expect(await mutate('west')).toHaveLength(2);
    expect(registry.get('west')!.provider().set!.problems.map((p) => p.source)).toEqual(['s3://policies/clusters/west/broken.yaml']);
    expect(registry.get('east')!.provider().set!.problems).toEqual([]);

    // Storage down: both keep their last good sets; each reports its own error.
    await s3.stop();
    const down = await registry.refreshAll();
    expect([...down.values()].map((r) => r.outcome)).toEqual(['failed', 'failed']);
    expect(registry.get('east')!.provider().sourceErrors[0]).toMatch(/^s3:\/\/policies\/clusters\/east: cannot list/);
    expect(registry.get('west')!.provider().sourceErrors[0]).toMatch(/^s3:\/\/policies\/clusters\/west: cannot list/);
    expect(await mutate('east')).toEqual([{ op: 'add', path: '/metadata/labels/region', value: 'east-2' }]);
    await s3.restart();
    expect([...(await registry.refreshAll()).values()].map((r) => r.outcome)).toEqual(['unchanged', 'unchanged']);
    expect(registry.get('west')!.provider().sourceErrors).toEqual([]);
  });
});
