/**
 * The server tells the same truth (issue 10), over HTTP on loopback: /readyz lists each construct's
 * problem with document, field path, message and effect, and a `warnings` entry (still ready) for a
 * source that holds no policy; /mutate runs what validate said runs — a refused policy does nothing
 * (no denial), a rule needing roles is not run — and carries Kyverno's `spec.emitWarning` warnings in
 * the reply, bounded as the API server bounds them, in-process and through the Node worker pool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewPool, workerEntryBeside } from '../../src/adapters/pool/index.js';
import { WARNING_ITEM_CHARS, WARNINGS_TOTAL_CHARS } from '../../src/admission/index.js';
import type { LogRecord, PolicySetProvider } from '../../src/server/index.js';
import { createApp } from '../../src/server/index.js';
import { PolicySetRefresher, type PolicySource } from '../../src/sources/index.js';
import { reviewOf, startTestServer, type TestServer } from '../server/helpers.js';
import { CONSTRUCTS, constructPolicy, yamlDocuments } from './policies.js';

/** An in-memory source: `files` maps names to YAML text. */
function memorySource(uri: string, files: Record<string, string>): PolicySource {
  return {
    uri,
    list: async () => Object.keys(files).map((name) => ({ name, label: `${uri}/${name}`, version: String(files[name].length) })),
    fetch: async (entry) => ({ status: 'fetched', version: String(files[entry.name].length), text: files[entry.name] }),
  };
}

async function loaded(sources: PolicySource[], logs: LogRecord[] = []): Promise<PolicySetProvider> {
  const refresher = new PolicySetRefresher({ name: 'default', sources, intervalMs: 0, logger: (r) => logs.push(r) });
  const result = await refresher.refresh();
  expect(result.outcome).toBe('applied');
  return refresher.provider;
}

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'a', image: 'nginx:1.27' }] } };

async function postReview(url: string, review: unknown): Promise<{ response: { allowed: boolean; patch?: string; warnings?: string[]; auditAnnotations?: Record<string, string> } }> {
  const res = await fetch(`${url}/mutate`, { method: 'POST', body: JSON.stringify(review), headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(10_000) });
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

function patchOf(reply: { response: { patch?: string } }): unknown {
  return reply.response.patch ? JSON.parse(Buffer.from(reply.response.patch, 'base64').toString('utf8')) : [];
}

describe('/readyz shows every construct as a problem; a source without policy as a warning', () => {
  let t: TestServer;
  const logs: LogRecord[] = [];
  beforeAll(async () => {
    const files: Record<string, string> = {};
    CONSTRUCTS.forEach((c, i) => (files[`c${String(i).padStart(2, '0')}.yaml`] = yamlDocuments([constructPolicy(`c${i}`, c)])));
    const policies = await loaded([memorySource('mem://policies', files), memorySource('mem://typo', {})], logs);
    t = await startTestServer({ policies });
  });
  afterAll(() => t.close());

  it('lists each problem with its document, path, message and effect, ready all the same', async () => {
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ready: boolean; problems: { source: string; kind: string; name: string; path: string; message: string; effect: string }[]; warnings?: string[]; counts: { kyvernoPolicies: number } };
    expect(body.ready).toBe(true);
    CONSTRUCTS.forEach((c, i) => {
      const found = body.problems.filter((p) => p.name === `c${i}`);
      expect(found, c.name).toEqual([expect.objectContaining({ source: `mem://policies/c${String(i).padStart(2, '0')}.yaml`, kind: 'ClusterPolicy', path: c.path, effect: c.effect, message: expect.stringMatching(c.message) })]);
    });
    expect(body.counts.kyvernoPolicies).toBe(CONSTRUCTS.filter((c) => c.effect === 'kept').length);
    expect(body.warnings).toEqual([expect.stringMatching(/^policy source mem:\/\/typo holds no files or objects: nothing is loaded from it/)]);
  });

  it('logs the warning when the set is applied', () => {
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'policy source holds no policy', warning: expect.stringContaining('mem://typo') }));
  });

  it('has no warnings entry when every source holds a policy', async () => {
    const policies = await loaded([memorySource('mem://one', { 'p.yaml': yamlDocuments([constructPolicy('p', { rules: [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } }] })]) })]);
    const { app } = createApp({ policies });
    const body = (await (await app.request('/readyz')).json()) as Record<string, unknown>;
    expect(body.ready).toBe(true);
    expect(body).not.toHaveProperty('warnings');
  });
});

describe('/mutate runs what validate said runs', () => {
  let t: TestServer;
  beforeAll(async () => {
    const docs = [
      constructPolicy('a-needs-api', {
        spec: { failurePolicy: 'Fail' },
        rules: [{ name: 'env', context: [{ name: 'ns', apiCall: { urlPath: '/api/v1/namespaces/shop' } }], mutate: { patchStrategicMerge: { metadata: { labels: { env: '{{ ns.env }}' } } } } }],
      }),
      constructPolicy('b-bad-function', { spec: { failurePolicy: 'Fail' }, rules: [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { labels: { x: '{{ nope(request.object) }}' } } } } }] }),
      constructPolicy('c-roles', {
        spec: { background: false },
        rules: [
          { name: 'admins', match: { any: [{ resources: { kinds: ['Pod'] }, clusterRoles: ['cluster-admin'] }] }, mutate: { patchStrategicMerge: { metadata: { labels: { admin: 'yes' } } } } },
          { name: 'not-admins', exclude: { any: [{ clusterRoles: ['cluster-admin'] }] }, mutate: { patchStrategicMerge: { metadata: { labels: { admin: 'no' } } } } },
          { name: 'all', mutate: { patchStrategicMerge: { metadata: { labels: { seen: 'yes' } } } } },
        ],
      }),
    ];
    t = await startTestServer({ policies: await loaded([memorySource('mem://p', { 'p.yaml': yamlDocuments(docs) })]) });
  });
  afterAll(() => t.close());

  it('refused policies do nothing (a Fail policy does not deny); the rules needing roles are not run', async () => {
    const reply = await postReview(t.url, reviewOf(pod));
    expect(reply.response.allowed).toBe(true);
    expect(patchOf(reply)).toEqual([{ op: 'add', path: '/metadata/labels', value: { seen: 'yes' } }]);
    const audit = JSON.parse(reply.response.auditAnnotations!['kyverno-mutate']) as { policy: string; rule: string }[];
    expect(audit.map((a) => `${a.policy} ${a.rule}`)).toEqual(['ClusterPolicy/c-roles all']);
  });
});

describe('spec.emitWarning over HTTP', () => {
  const emitting = constructPolicy('add-team', {
    spec: { emitWarning: true, failurePolicy: 'Ignore' },
    rules: [
      { name: 'team', mutate: { patchStrategicMerge: { metadata: { labels: { team: 'blue' } } } } },
      { name: 'unchanged', mutate: { patchStrategicMerge: { metadata: { labels: { team: 'blue' } } } } },
    ],
  });
  const silent = constructPolicy('quiet', { rules: [{ name: 'q', mutate: { patchStrategicMerge: { metadata: { labels: { q: 'yes' } } } } }] });
  const strict = constructPolicy('strict', {
    spec: { emitWarning: true, failurePolicy: 'Fail' },
    rules: [{ name: 'owner', match: { any: [{ resources: { kinds: ['Pod'], namespaces: ['strict'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels: { owner: '{{ request.object.metadata.annotations.owner }}' } } } } }],
  });
  const expected = ['policy add-team.team: mutated Pod/web in namespace shop'];
  let provider: PolicySetProvider;
  let t: TestServer;
  beforeAll(async () => {
    provider = await loaded([memorySource('mem://p', { 'p.yaml': yamlDocuments([emitting, silent, strict]) })]);
    t = await startTestServer({ policies: provider });
  });
  afterAll(() => t.close());

  it('the reply carries `policy <name>.<rule>: <message>` for each rule of the policy that did not skip', async () => {
    const reply = await postReview(t.url, reviewOf(pod));
    expect(reply.response.allowed).toBe(true);
    expect(reply.response.warnings).toEqual(expected);
  });

  it('a denied request carries none, as Kyverno answers a blocking failure with its error alone', async () => {
    const reply = await postReview(t.url, reviewOf({ ...pod, metadata: { name: 'web', namespace: 'strict' } }));
    expect(reply.response.allowed).toBe(false);
    expect(reply.response).not.toHaveProperty('warnings');
  });

  it('the Node worker pool gives the same reply', { timeout: 60_000 }, async () => {
    const pool = new ReviewPool({ workers: 1, heapMb: 256, graceMs: 200, queueLimit: 4, entry: await workerEntryBeside(import.meta.url) });
    try {
      const { app } = createApp({ policies: provider, reviewer: pool.reviewer });
      const res = await app.request('/mutate', { method: 'POST', body: JSON.stringify(reviewOf(pod)), headers: { 'content-type': 'application/json' } });
      const reply = (await res.json()) as { response: { warnings?: string[] } };
      expect(reply.response.warnings).toEqual(expected);
    } finally {
      await pool.close();
    }
  });

  it('warnings are shaped as the API server keeps them: no control characters, deduplicated, within its budget', async () => {
    // 21 applied rules whose messages name an object with a long, two-line name: past the 4096-character budget.
    const rules = Array.from({ length: 20 }, (_, i) => ({ name: `r${i}`, mutate: { patchStrategicMerge: { metadata: { labels: { [`l${i}`]: 'x' } } } } }));
    const cluster = constructPolicy('noisy', { spec: { emitWarning: true }, rules });
    // A Policy of the same name whose rule r0 reports the very same text: kept once.
    const namespaced = { ...constructPolicy('noisy', { spec: { emitWarning: true }, rules: [{ name: 'r0', mutate: { patchStrategicMerge: { metadata: { labels: { extra: 'x' } } } } }] }), kind: 'Policy', metadata: { name: 'noisy', namespace: 'shop' } };
    const policies = await loaded([memorySource('mem://n', { 'p.yaml': yamlDocuments([cluster, namespaced]) })]);
    const { app } = createApp({ policies });
    const name = `web\n${'x'.repeat(240)}`;
    const review = reviewOf({ ...pod, metadata: { name, namespace: 'shop' } });
    const res = await app.request('/mutate', { method: 'POST', body: JSON.stringify(review), headers: { 'content-type': 'application/json' } });
    const warnings = ((await res.json()) as { response: { warnings: string[] } }).response.warnings;
    expect(warnings.length).toBeGreaterThan(10);
    expect(warnings.length).toBeLessThan(20);
    expect(warnings[0]).toBe(`policy noisy.r0: mutated Pod/web ${'x'.repeat(240)} in namespace shop`.slice(0, WARNING_ITEM_CHARS));
    expect(warnings.filter((w) => w.startsWith('policy noisy.r0: '))).toHaveLength(1);
    for (const w of warnings) {
      expect(w).toMatch(/^policy noisy\.r\d+: mutated Pod\/web x+/);
      expect(w).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(Array.from(w).length).toBeLessThanOrEqual(WARNING_ITEM_CHARS);
    }
    const total = warnings.reduce((n, w) => n + Array.from(w).length, 0);
    expect(total).toBeGreaterThanOrEqual(WARNINGS_TOTAL_CHARS);
    expect(total).toBeLessThan(WARNINGS_TOTAL_CHARS + WARNING_ITEM_CHARS);
  });
});
