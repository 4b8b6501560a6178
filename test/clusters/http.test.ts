/**
 * The cluster routes through the Hono app's fetch: bearer and path secrets, 401 before anything is read
 * or evaluated, 404 for an unknown cluster, each cluster served from its own set, secrets never logged.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterRegistry, hashSecret, readClustersConfig } from '../../src/clusters/index.js';
import { createApp, fixedPolicySet, type AmenderApp, type LogRecord } from '../../src/server/index.js';
import { registerSourceMetrics } from '../../src/sources/index.js';
import { nodeSourceResolvers } from '../../src/sources/node/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { labelPolicy, patchOf, podReview } from '../sources/helpers.js';

const ALPHA_SECRET = 'a1f3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3';
const ALPHA_NEXT_SECRET = 'rotated-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f';
const BETA_SECRET = 'b2e4a6c8d0f2b4e6a8c0d2f4b6e8a0c2d4f6b8e0a2c4d6f8b0e2a4c6d8f0b2e4';
const BROKEN_SECRET = 'c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5';
const SECRETS = [ALPHA_SECRET, ALPHA_NEXT_SECRET, BETA_SECRET, BROKEN_SECRET];

let dir: string;
let registry: ClusterRegistry;
let amender: AmenderApp;
const logs: LogRecord[] = [];
/** How often each cluster's policy set was looked at (the provider read by the mutate handler). */
const reads = new Map<string, number>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'amender-clusters-'));
  await mkdir(join(dir, 'alpha'));
  await mkdir(join(dir, 'beta'));
  await writeFile(join(dir, 'alpha', 'label.yaml'), labelPolicy('alpha-label', 'cluster', 'alpha'));
  await writeFile(join(dir, 'beta', 'label.yaml'), labelPolicy('beta-label', 'cluster', 'beta'));
  const env = {
    AMENDER_CLUSTERS: 'alpha,beta,broken',
    AMENDER_CLUSTER_ALPHA_SOURCES: `file://${join(dir, 'alpha')}`,
    AMENDER_CLUSTER_ALPHA_SECRET_HASHES: `${await hashSecret(ALPHA_SECRET)},${await hashSecret(ALPHA_NEXT_SECRET)}`,
    AMENDER_CLUSTER_BETA_SOURCES: `file://${join(dir, 'beta')}`,
    AMENDER_CLUSTER_BETA_SECRET_HASHES: await hashSecret(BETA_SECRET),
    AMENDER_CLUSTER_BROKEN_SOURCES: `file://${join(dir, 'does-not-exist')}`,
    AMENDER_CLUSTER_BROKEN_SECRET_HASHES: await hashSecret(BROKEN_SECRET),
  };
  const logger = (r: LogRecord) => logs.push(r);
  registry = ClusterRegistry.create(readClustersConfig(env), { resolvers: nodeSourceResolvers({ env }), logger });
  await registry.refreshAll();
  // The default /mutate set: a policy that would label everything "default".
  const defaultSet = buildPolicySet(parseDocuments('default.yaml', labelPolicy('default-label', 'cluster', 'default')));
  amender = createApp({
    policies: fixedPolicySet(defaultSet, 'test'),
    logger,
    clusters: {
      get(name) {
        const cluster = registry.get(name);
        if (!cluster) return undefined;
        return {
          verifier: cluster.verifier,
          provider: () => {
            reads.set(name, (reads.get(name) ?? 0) + 1);
            return cluster.provider();
          },
        };
      },
    },
  });
  registerSourceMetrics(amender.metrics.registry, () => registry.refreshers());
});

afterAll(async () => {
  registry.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A body that records whether anything read it. */
function watchedBody(): { body: ReadableStream<Uint8Array>; wasRead: () => boolean } {
  let read = false;
  const bytes = new TextEncoder().encode(JSON.stringify(podReview()));
  return {
    body: new ReadableStream({
      pull(controller) {
        read = true;
        controller.enqueue(bytes);
        controller.close();
      },
    }, { highWaterMark: 0 }), // pulled only when someone reads
    wasRead: () => read,
  };
}

async function post(path: string, headers: Record<string, string> = {}, body: string | ReadableStream<Uint8Array> = JSON.stringify(podReview())) {
  const res = await amender.app.fetch(
    new Request(`https://amender.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, duplex: 'half' } as RequestInit),
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

describe('cluster routes', () => {
  it('serves each cluster from its own set, with the bearer secret', async () => {
    const alpha = await post('/clusters/alpha/mutate', { authorization: `Bearer ${ALPHA_SECRET}` });
    expect(alpha.status).toBe(200);
    expect(patchOf(alpha.body)).toEqual([{ op: 'add', path: '/metadata/labels/cluster', value: 'alpha' }]);
    const beta = await post('/clusters/beta/mutate', { authorization: `bearer  ${BETA_SECRET}` });
    expect(beta.status).toBe(200);
    expect(patchOf(beta.body)).toEqual([{ op: 'add', path: '/metadata/labels/cluster', value: 'beta' }]);
    const fallback = await post('/mutate');
    expect(patchOf(fallback.body)).toEqual([{ op: 'add', path: '/metadata/labels/cluster', value: 'default' }]);
  });

  it('accepts the secret as a path segment', async () => {
    const alpha = await post(`/clusters/alpha/${ALPHA_SECRET}/mutate`);
    expect(alpha.status).toBe(200);
    expect(patchOf(alpha.body)).toEqual([{ op: 'add', path: '/metadata/labels/cluster', value: 'alpha' }]);
    const encoded = await post(`/clusters/alpha/${encodeURIComponent(ALPHA_NEXT_SECRET)}/mutate`);
    expect(encoded.status).toBe(200);
  });

  it('accepts both hashes during a rotation', async () => {
    expect((await post('/clusters/alpha/mutate', { authorization: `Bearer ${ALPHA_NEXT_SECRET}` })).status).toBe(200);
    expect((await post('/clusters/alpha/mutate', { authorization: `Bearer ${ALPHA_SECRET}` })).status).toBe(200);
  });

  it('answers 401 to a missing or wrong secret without reading the body or looking at the policy set', async () => {
    const before = reads.get('alpha') ?? 0;
    const reviewsBefore = amender.metrics.reviews.get({ outcome: 'patched', cluster: 'alpha' });
    const cases: [string, Record<string, string>][] = [
      ['/clusters/alpha/mutate', {}],
      ['/clusters/alpha/mutate', { authorization: `Bearer ${BETA_SECRET}` }], // another cluster's secret
      ['/clusters/alpha/mutate', { authorization: `Basic ${btoa(`x:${ALPHA_SECRET}`)}` }],
      ['/clusters/alpha/mutate', { authorization: `Bearer ${ALPHA_SECRET.slice(0, -1)}` }],
      [`/clusters/alpha/${BETA_SECRET}/mutate`, {}],
      [`/clusters/alpha/${ALPHA_SECRET}x/mutate`, { authorization: `Bearer ${ALPHA_SECRET}` }], // a wrong path secret is not rescued by a header
    ];
    for (const [path, headers] of cases) {
      const { body, wasRead } = watchedBody();
      const res = await post(path, headers, body);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="amender"');
      expect(res.body).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
      expect(wasRead(), `${path} read the body`).toBe(false);
    }
    expect(reads.get('alpha') ?? 0).toBe(before);
    expect(amender.metrics.reviews.get({ outcome: 'patched', cluster: 'alpha' })).toBe(reviewsBefore);

    // The control: the same probes see an accepted request read and evaluated.
    const { body, wasRead } = watchedBody();
    expect((await post('/clusters/alpha/mutate', { authorization: `Bearer ${ALPHA_SECRET}` }, body)).status).toBe(200);
    expect(wasRead()).toBe(true);
    expect(reads.get('alpha')).toBe(before + 1);
    expect(amender.metrics.reviews.get({ outcome: 'patched', cluster: 'alpha' })).toBe(reviewsBefore + 1);
  });

  it('answers 404 to an unknown cluster, whatever the secret', async () => {
    for (const [path, headers] of [
      ['/clusters/gamma/mutate', { authorization: `Bearer ${ALPHA_SECRET}` }],
      [`/clusters/gamma/${ALPHA_SECRET}/mutate`, {}],
      ['/clusters/gamma/mutate', {}],
    ] as [string, Record<string, string>][]) {
      const { body, wasRead } = watchedBody();
      const res = await post(path, headers, body);
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('no cluster named "gamma" is served here');
      expect(wasRead()).toBe(false);
    }
  });

  it('keeps one cluster’s unreadable source to itself', async () => {
    const broken = await post('/clusters/broken/mutate', { authorization: `Bearer ${BROKEN_SECRET}` });
    expect(broken.status).toBe(503);
    const ready = await amender.app.fetch(new Request('https://amender.test/clusters/broken/readyz', { headers: { authorization: `Bearer ${BROKEN_SECRET}` } }));
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { sourceErrors: string[] }).sourceErrors[0]).toMatch(/does-not-exist: no such file or folder/);
    const alphaReady = await amender.app.fetch(new Request('https://amender.test/clusters/alpha/readyz', { headers: { authorization: `Bearer ${ALPHA_SECRET}` } }));
    expect(alphaReady.status).toBe(200);
    expect(((await alphaReady.json()) as { counts: { mutatingAdmissionPolicies: number } }).counts.mutatingAdmissionPolicies).toBe(1);
    expect((await post('/clusters/beta/mutate', { authorization: `Bearer ${BETA_SECRET}` })).status).toBe(200);
    const metrics = await (await amender.app.fetch(new Request('https://amender.test/metrics'))).text();
    expect(metrics).toContain('amender_policy_source_errors{policy_set="broken"} 1');
    expect(metrics).toContain('amender_policy_source_errors{policy_set="alpha"} 0');
    expect(metrics).toContain('amender_policy_documents{policy_set="beta"} 2');
  });

  it('needs the secret for a cluster’s readiness too, and answers 405 to other methods', async () => {
    expect((await amender.app.fetch(new Request('https://amender.test/clusters/alpha/readyz'))).status).toBe(401);
    const get = await amender.app.fetch(new Request(`https://amender.test/clusters/alpha/${ALPHA_SECRET}/mutate`));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(JSON.stringify(await get.json())).not.toContain(ALPHA_SECRET);
  });

  it('never writes a secret to the logs', async () => {
    await post(`/clusters/alpha/${ALPHA_SECRET}/mutate`);
    await post(`/clusters/beta/${ALPHA_SECRET}/mutate`);
    const text = JSON.stringify(logs);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    expect(logs.some((l) => l.msg === 'request' && l.path === '/clusters/alpha/[redacted]/mutate' && l.status === 200)).toBe(true);
    expect(logs.some((l) => l.msg === 'request' && l.path === '/clusters/beta/[redacted]/mutate' && l.status === 401)).toBe(true);
  });
});
