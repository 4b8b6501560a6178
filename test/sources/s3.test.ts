/**
 * The S3 source against an S3-protocol server (s3rver) on 127.0.0.1: every request the SDK sends is
 * recorded by a client middleware, so the tests see what a refresh costs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/index.js';
import { PolicySetRefresher, registerSourceMetrics, resolveSources } from '../../src/sources/index.js';
import { nodeSourceResolvers, s3Source } from '../../src/sources/node/index.js';
import { BUCKET, CORRUPT_YAML, labelPolicy, patchOf, podReview, recordingLogger, startS3, type TestS3 } from './helpers.js';

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.dispose();
});
beforeEach(async () => {
  await s3.restart(); // a test may have left it stopped
  await s3.clear();
});

function refresherFor(prefix: string, options: { trustListedVersions?: boolean; logger?: ReturnType<typeof recordingLogger>['logger'] } = {}) {
  const source = s3Source({ uri: `s3://${BUCKET}/${prefix}`, client: s3.client, bucket: BUCKET, prefix });
  return new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, limits: { timeoutMs: 5_000 }, ...options });
}

function policyNames(r: PolicySetRefresher): string[] {
  return r.provider().set?.mutatingPolicies.map((p) => p.policy.name) ?? [];
}

async function review(r: PolicySetRefresher, labels: Record<string, string> = {}) {
  const { app } = createApp({ policies: r.provider });
  const res = await app.fetch(new Request('http://amender.test/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(podReview(labels)) }));
  return { status: res.status, body: (await res.json()) as { response?: { patch?: string; allowed?: boolean } } };
}

describe('S3 source', () => {
  it('loads every policy document below the prefix, and only those', async () => {
    await s3.put('team-a/label.yaml', labelPolicy('team-label', 'team', 'a'));
    await s3.put('team-a/nested/owner.yml', labelPolicy('owner-label', 'owner', 'ops'));
    await s3.put('team-a/README.md', '# not a policy');
    await s3.put('team-a/tests/pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: fixture}\n');
    await s3.put('team-ab/other.yaml', labelPolicy('other', 'other', 'x'));
    const r = refresherFor('team-a');
    const result = await r.refresh();
    expect(result.outcome).toBe('applied');
    expect(policyNames(r)).toEqual(['owner-label', 'team-label']);
    const state = r.provider();
    expect(state.sourceErrors).toEqual([]);
    expect(state.set?.problems).toEqual([]);
    expect(state.source).toBe('s3://policies/team-a');
    const reply = await review(r);
    expect(reply.status).toBe(200);
    expect(patchOf(reply.body)).toEqual([
      { op: 'add', path: '/metadata/labels/owner', value: 'ops' },
      { op: 'add', path: '/metadata/labels/team', value: 'a' },
    ]);
  });

  it('reads an object written in UTF-16 with its byte-order mark, as kubectl reads such a file', async () => {
    await s3.put('utf16/a.yaml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(labelPolicy('wide', 'team', 'one'), 'utf16le')]));
    const r = refresherFor('utf16');
    expect((await r.refresh()).outcome).toBe('applied');
    expect(r.provider().set?.problems).toEqual([]);
    expect(policyNames(r)).toEqual(['wide']);
  });

  it('leaves out an object over the size limit, never requesting it, and loads the others', async () => {
    await s3.put('sized/a.yaml', labelPolicy('pol-a', 'team', 'a'));
    await s3.put('sized/b.yaml', labelPolicy('pol-b', 'team', 'b'));
    const big = labelPolicy('pol-big', 'team', 'big') + `#${'x'.repeat(999)}\n`.repeat(1100);
    await s3.put('sized/big.yaml', big);
    const r = refresherFor('sized');
    s3.requests.length = 0;
    expect((await r.refresh()).outcome).toBe('applied');
    expect(r.provider().sourceErrors).toEqual([]);
    expect(policyNames(r)).toEqual(['pol-a', 'pol-b']);
    const problems = r.provider().set!.problems;
    expect(problems.map((p) => [p.source, p.effect])).toEqual([[`s3://${BUCKET}/sized/big.yaml`, 'ignored']]);
    expect(problems[0].message).toBe(`is ${Buffer.byteLength(big)} bytes, over the limit of 1048576 bytes per file or object; not read`);
    expect(s3.requests.filter((q) => q.startsWith('GetObjectCommand'))).toHaveLength(2);
    expect((await r.refresh()).outcome).toBe('unchanged');
  });

  it('paginates a listing larger than one page and bounds the count', async () => {
    for (let i = 0; i < 7; i++) {
      await s3.put(`many/p${i}.json`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' } }));
    }
    const paged = (limits = {}) =>
      new PolicySetRefresher({
        name: 'paged',
        sources: [s3Source({ uri: 's3://policies/many', client: s3.client, bucket: BUCKET, prefix: 'many', pageSize: 3 })],
        intervalMs: 0,
        limits,
      });
    const r = paged();
    s3.requests.length = 0;
    expect((await r.refresh()).outcome).toBe('applied');
    // Three pages, then three again: a refresh that read anything new lists again to confirm the versions.
    expect(s3.requests.filter((q) => q.startsWith('ListObjectsV2Command'))).toEqual(Array(6).fill('ListObjectsV2Command 200'));
    expect(r.provider().set?.counts.params).toBe(7);

    const bounded = paged({ maxDocuments: 4 });
    s3.requests.length = 0;
    const result = await bounded.refresh();
    expect(result.outcome).toBe('failed');
    expect(result.errors[0]).toMatch(/lists more than 4 documents/);
    // It stops listing as soon as the limit is passed, and fetches nothing.
    expect(s3.requests).toEqual(['ListObjectsV2Command 200', 'ListObjectsV2Command 200']);
  });

  it('refreshes: a changed object is fetched again, an unchanged one is not requested, nothing is rebuilt when nothing changed', async () => {
    await s3.put('p/a.yaml', labelPolicy('a', 'team', 'one'));
    await s3.put('p/b.yaml', labelPolicy('b', 'owner', 'ops'));
    const r = refresherFor('p');
    await r.refresh();
    const first = r.provider();

    s3.requests.length = 0;
    const same = await r.refresh();
    expect(same).toMatchObject({ outcome: 'unchanged', fetched: 0, notModified: 0, skipped: 2 });
    expect(s3.requests).toEqual(['ListObjectsV2Command 200']);
    expect(r.provider().set).toBe(first.set); // the very same set object: nothing rebuilt
    expect(r.provider().loadedAt).toBe(first.loadedAt);

    await s3.put('p/a.yaml', labelPolicy('a', 'team', 'two'));
    s3.requests.length = 0;
    const changed = await r.refresh();
    expect(changed).toMatchObject({ outcome: 'applied', fetched: 1, skipped: 1 });
    expect(s3.requests.sort()).toEqual(['GetObjectCommand 200', 'ListObjectsV2Command 200', 'ListObjectsV2Command 200']); // listed again to confirm
    expect(r.provider().set).not.toBe(first.set);
    expect(patchOf((await review(r)).body)).toContainEqual({ op: 'add', path: '/metadata/labels/team', value: 'two' });

    await s3.remove('p/b.yaml');
    expect((await r.refresh()).outcome).toBe('applied');
    expect(policyNames(r)).toEqual(['a']);
  });

  it('asks with If-None-Match when not trusting listed versions: 304, no body, nothing rebuilt', async () => {
    await s3.put('p/a.yaml', labelPolicy('a', 'team', 'one'));
    await s3.put('p/b.yaml', labelPolicy('b', 'owner', 'ops'));
    const r = refresherFor('p', { trustListedVersions: false });
    await r.refresh();
    const first = r.provider().set;
    s3.requests.length = 0;
    const again = await r.refresh();
    expect(again).toMatchObject({ outcome: 'unchanged', fetched: 0, notModified: 2, skipped: 0 });
    expect(s3.requests.sort()).toEqual(['GetObjectCommand 304', 'GetObjectCommand 304', 'ListObjectsV2Command 200']);
    expect(r.provider().set).toBe(first);

    await s3.put('p/b.yaml', labelPolicy('b', 'owner', 'dev'));
    s3.requests.length = 0;
    expect(await r.refresh()).toMatchObject({ outcome: 'applied', fetched: 1, notModified: 1 });
    expect(s3.requests.sort()).toEqual(['GetObjectCommand 200', 'GetObjectCommand 304', 'ListObjectsV2Command 200', 'ListObjectsV2Command 200']);
  });

  it('keeps the last good set while storage is down, says so in logs, /readyz and /metrics, and recovers', async () => {
    await s3.put('p/a.yaml', labelPolicy('a', 'team', 'one'));
    const { logs, logger } = recordingLogger();
    const r = refresherFor('p', { logger });
    await r.refresh();
    const good = r.provider().set;
    const amender = createApp({ policies: r.provider });
    registerSourceMetrics(amender.metrics.registry, () => [r]);

    await s3.stop();
    const down = await r.refresh();
    expect(down.outcome).toBe('failed');
    expect(down.errors[0]).toMatch(/^s3:\/\/policies\/p: cannot list s3:\/\/policies\/p\/: /);
    expect(r.provider().set).toBe(good);
    expect(logs.some((l) => l.level === 'error' && l.msg === 'policy sources unreadable' && l.policySet === 'default')).toBe(true);

    const ready = await amender.app.fetch(new Request('http://amender.test/readyz'));
    expect(ready.status).toBe(200); // still serving the last good set
    const body = (await ready.json()) as { ready: boolean; sourceErrors: string[]; counts: { mutatingAdmissionPolicies: number } };
    expect(body.ready).toBe(true);
    expect(body.counts.mutatingAdmissionPolicies).toBe(1);
    expect(body.sourceErrors).toHaveLength(1);
    expect(body.sourceErrors[0]).toMatch(/cannot list .* \(the set loaded at .* stays in force\)$/);
    expect(patchOf((await review(r)).body)).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'one' }]);

    const metrics = await (await amender.app.fetch(new Request('http://amender.test/metrics'))).text();
    expect(metrics).toContain('amender_policy_refresh_total{policy_set="default"} 2');
    expect(metrics).toContain('amender_policy_refresh_failures_total{policy_set="default"} 1');
    expect(metrics).toContain('amender_policy_source_errors{policy_set="default"} 1');
    expect(metrics).toContain('amender_policy_documents{policy_set="default"} 2');
    expect(metrics).toContain('amender_policyset_source_errors 1');
    expect(metrics).toMatch(/amender_policy_refresh_last_success_timestamp_seconds\{policy_set="default"\} \d+/);

    await s3.restart();
    await s3.put('p/a.yaml', labelPolicy('a', 'team', 'back'));
    const up = await r.refresh();
    expect(up.outcome).toBe('applied');
    expect(r.provider().sourceErrors).toEqual([]);
    expect(patchOf((await review(r)).body)).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'back' }]);
    const recovered = (await (await amender.app.fetch(new Request('http://amender.test/readyz'))).json()) as { sourceErrors: string[] };
    expect(recovered.sourceErrors).toEqual([]);
  });

  it('reports the first load failing as not ready, then serves once storage answers', async () => {
    await s3.put('p/a.yaml', labelPolicy('a', 'team', 'one'));
    await s3.stop();
    const r = refresherFor('p');
    expect((await r.refresh()).outcome).toBe('failed');
    const { app } = createApp({ policies: r.provider });
    const ready = await app.fetch(new Request('http://amender.test/readyz'));
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { sourceErrors: string[] }).sourceErrors[0]).toMatch(/no policy set is loaded yet/);
    expect((await review(r)).status).toBe(503);
    await s3.restart();
    expect((await r.refresh()).outcome).toBe('applied');
    expect((await app.fetch(new Request('http://amender.test/readyz'))).status).toBe(200);
  });

  it('loads the other documents when one is corrupt, and keeps a corrupted document at its last good version', async () => {
    await s3.put('p/good.yaml', labelPolicy('good', 'team', 'one'));
    await s3.put('p/broken.yaml', CORRUPT_YAML);
    const r = refresherFor('p');
    expect((await r.refresh()).outcome).toBe('applied');
    expect(policyNames(r)).toEqual(['good']);
    const problems = r.provider().set!.problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ source: 's3://policies/p/broken.yaml', effect: 'ignored' });
    expect(problems[0].message).toMatch(/^invalid YAML: /);

    // A good document later overwritten by a half-written one: its last good version stays in force.
    await s3.put('p/broken.yaml', labelPolicy('fixed', 'owner', 'ops'));
    await r.refresh();
    expect(policyNames(r)).toEqual(['fixed', 'good']);
    await s3.put('p/broken.yaml', CORRUPT_YAML);
    expect((await r.refresh()).outcome).toBe('applied');
    expect(policyNames(r)).toEqual(['fixed', 'good']);
    expect(r.provider().set!.problems[0].message).toMatch(/invalid YAML: .*\(the last good version of this document stays in force\)/s);
  });

  it('reads every object at the ETag its listing showed: a generation landing in between makes the refresh list again, never mix', async () => {
    await s3.put('gen/a.yaml', labelPolicy('a', 'gen-a', 'g1'));
    await s3.put('gen/b.yaml', labelPolicy('b', 'gen-b', 'g1'));
    const inner = s3Source({ uri: `s3://${BUCKET}/gen`, client: s3.client, bucket: BUCKET, prefix: 'gen' });
    let replaceAfterListing: (() => Promise<void>) | undefined;
    let lists = 0;
    const source = {
      uri: inner.uri,
      list: async (o: Parameters<typeof inner.list>[0]) => {
        lists++;
        const listed = await inner.list(o);
        const replace = replaceAfterListing;
        replaceAfterListing = undefined;
        await replace?.();
        return listed;
      },
      fetch: inner.fetch.bind(inner),
    };
    const r = new PolicySetRefresher({ name: 'default', sources: [source], intervalMs: 0, limits: { timeoutMs: 5_000 } });
    expect((await r.refresh()).outcome).toBe('applied');
    // b changes alone (same generation); the listing shows it, and a unchanged. Then, between the listing
    // and the GETs, a new generation of both lands: a read at its listed version (skipped) next to b read
    // at its newest would mix g1 and g2.
    await s3.put('gen/b.yaml', `${labelPolicy('b', 'gen-b', 'g1')}# touched\n`);
    replaceAfterListing = async () => {
      await s3.put('gen/a.yaml', labelPolicy('a', 'gen-a', 'g2'));
      await s3.put('gen/b.yaml', labelPolicy('b', 'gen-b', 'g2'));
    };
    lists = 0;
    expect((await r.refresh()).outcome).toBe('applied');
    expect(lists).toBe(3); // b's GET found another ETag: listed again, read, and the listing confirmed
    expect(patchOf((await review(r)).body)).toEqual([
      { op: 'add', path: '/metadata/labels/gen-a', value: 'g2' },
      { op: 'add', path: '/metadata/labels/gen-b', value: 'g2' },
    ]);
    expect(r.provider().sourceErrors).toEqual([]);
  });

  it('refuses a document over the size limit alone: a new one is left out, one that grew keeps its last good version', async () => {
    await s3.put('p/a.yaml', labelPolicy('a', 'team', 'one'));
    const r = new PolicySetRefresher({
      name: 'small',
      sources: [s3Source({ uri: 's3://policies/p', client: s3.client, bucket: BUCKET, prefix: 'p' })],
      intervalMs: 0,
      limits: { maxDocumentBytes: 2048 },
    });
    await r.refresh();
    await s3.put('p/big.yaml', `# ${'x'.repeat(4096)}\n`);
    const grown = labelPolicy('a', 'team', 'two') + `# ${'x'.repeat(4096)}\n`;
    await s3.put('p/a.yaml', grown);
    await s3.put('p/c.yaml', labelPolicy('c', 'team', 'three'));
    const result = await r.refresh();
    expect(result.outcome).toBe('applied');
    expect(policyNames(r)).toEqual(['a', 'c']);
    expect(r.provider().set!.problems.map((p) => [p.source, p.message])).toEqual([
      ['s3://policies/p/a.yaml', `is ${Buffer.byteLength(grown)} bytes, over the limit of 2048 bytes per file or object; not read (the last good version of this document stays in force)`],
      ['s3://policies/p/big.yaml', 'is 4099 bytes, over the limit of 2048 bytes per file or object; not read'],
    ]);
    expect(JSON.stringify(r.provider().set!.mutatingPolicies.find((p) => p.policy.name === 'a')!.policy)).toContain('one');
  });

  it('is configured from a URI and the usual variables with an endpoint override', async () => {
    await s3.put('from-env/a.yaml', labelPolicy('a', 'team', 'one'));
    const env = { AWS_REGION: 'eu-west-1', AMENDER_S3_ENDPOINT: s3.endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    // The SDK's default credential chain reads the process environment.
    process.env.AWS_ACCESS_KEY_ID = env.AWS_ACCESS_KEY_ID;
    process.env.AWS_SECRET_ACCESS_KEY = env.AWS_SECRET_ACCESS_KEY;
    try {
      const sources = resolveSources(['s3://policies/from-env'], nodeSourceResolvers({ env }));
      const r = new PolicySetRefresher({ name: 'env', sources, intervalMs: 0 });
      expect((await r.refresh()).outcome).toBe('applied');
      expect(policyNames(r)).toEqual(['a']);
    } finally {
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      else process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  });
});
