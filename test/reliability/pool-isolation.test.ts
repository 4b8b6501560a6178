/**
 * Issue 9 item 4, isolation in the Node server, against the built server (dist/node/main.js): reviews run
 * in a pool of worker threads, so probes, /metrics and other clusters never wait for a review in progress,
 * nor behind another cluster's backlog (the queue serves the clusters in turn, and a full queue refuses
 * the flooding cluster's newest review rather than another cluster's), nor for one cluster's reviews
 * holding every worker (a spare worker starts for the others);
 * a review that exhausts its worker's heap costs only that worker; a review whose client went away is
 * cancelled and frees its worker. Assertions are about order and outcomes, never about durations.
 *
 * The heavy policy: matchConditions of 10^4 CEL comprehension steps each (well inside the cost limit),
 * evaluated for every binding; a few hundred bindings with three of them make a review of seconds even on a
 * fast machine (where the single-condition review took 0.6 s, little more than the assertions about order
 * need while it runs).
 */
import { request as httpRequest } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clusters/index.js';
import { ensureBuilt, ROOT } from '../node/built.js';
import { startBundle, waitFor, type Running } from '../node/bundle.js';
import { labelPolicy, SLOW_CONDITION } from './helpers/label-policy.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
const SECRET = 'pool-isolation-secret';
let dir: string;
let secretHash: string;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'amender-pool-'));
  const folder = (name: string, yaml: string) => {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'policies.yaml'), yaml);
  };
  folder('light', labelPolicy('light', 'light', 1));
  folder('heavy', labelPolicy('heavy', 'heavy', 400, SLOW_CONDITION, 3));
  // A third of a heavy review: a cluster sending many of these floods one worker for a few seconds.
  folder('flood', labelPolicy('flood', 'flood', 400, SLOW_CONDITION, 1));
  // Tens of seconds of work even on a fast machine (128 million comprehension steps).
  folder('heavier', labelPolicy('heavier', 'heavier', 1600, SLOW_CONDITION, 8));
  // Seconds of work for a Pod labelled app: slow (12 million steps, as the heavy review), quick for the others:
  // one set, some reviews long. Long enough to hold the workers past the spare's threshold (0.5 s), short enough
  // to end well inside the deadline while other test files share the CPUs.
  folder('mixed', labelPolicy('mixed', 'mixed', 400, `object.metadata.labels.app != "slow" || ${SLOW_CONDITION}`, 3));
  secretHash = await hashSecret(SECRET);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Environment of a server with the default set `defaultSet` and the clusters named (each a folder). */
function serverEnv(defaultSet: string, clusters: string[], extra: Record<string, string>): Record<string, string> {
  // A deadline far above the heavy reviews' time (unless a test sets its own): on a loaded machine they
  // are slow, never stopped.
  const env: Record<string, string> = { AMENDER_POLICY_SOURCES: `file://${join(dir, defaultSet)}`, AMENDER_REFRESH_SECONDS: '0', AMENDER_REVIEW_DEADLINE_MS: '25000', ...extra };
  if (clusters.length > 0) env.AMENDER_CLUSTERS = clusters.join(',');
  for (const name of clusters) {
    env[`AMENDER_CLUSTER_${name.toUpperCase()}_SOURCES`] = `file://${join(dir, name)}`;
    env[`AMENDER_CLUSTER_${name.toUpperCase()}_SECRET_HASHES`] = secretHash;
  }
  return env;
}

interface Reply {
  status: number;
  body: string;
}

/** One request on its own connection; `abort` destroys the connection (the client goes away). */
function send(url: string, path: string, options: { method?: string; body?: string; cluster?: boolean } = {}): { reply: Promise<Reply>; abort: () => void } {
  const target = new URL(path, url);
  const headers: Record<string, string> = { connection: 'close' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.cluster) headers.authorization = `Bearer ${SECRET}`;
  let abort = () => {};
  const reply = new Promise<Reply>((resolve, reject) => {
    const req = httpRequest(target, { method: options.method ?? (options.body === undefined ? 'GET' : 'POST'), headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    abort = () => req.destroy();
    req.end(options.body);
  });
  return { reply, abort };
}

async function metric(url: string, line: RegExp): Promise<number | undefined> {
  const text = (await send(url, '/metrics').reply).body;
  const m = new RegExp(`^${line.source} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

/** Resolves the reply and records its name in `order` when it arrives. */
function track(order: string[], name: string, reply: Promise<Reply>): Promise<Reply> {
  return reply.then((r) => {
    order.push(name);
    return r;
  });
}

function response(reply: Reply): { allowed: boolean; status?: { message: string }; patch?: string; warnings?: string[] } {
  expect(reply.status, reply.body).toBe(200);
  return JSON.parse(reply.body).response;
}

function labelsPatched(reply: Reply): string[] {
  const patch = response(reply).patch;
  if (!patch) return [];
  return (JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as { path: string; value: unknown }[]).flatMap((op) =>
    op.path === '/metadata/labels' ? Object.keys(op.value as object) : op.path.startsWith('/metadata/labels/') ? [op.path.slice('/metadata/labels/'.length)] : [],
  );
}

describe('a review in progress holds only its worker', () => {
  let server: Running;
  beforeAll(async () => {
    server = await startBundle(serverEnv('light', ['heavy', 'light'], { AMENDER_WORKERS: '2' }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers /healthz, /readyz, /metrics and another cluster while a heavy review runs', { timeout: 60_000 }, async () => {
    const order: string[] = [];
    const heavy = track(order, 'heavy', send(server.url, '/clusters/heavy/mutate', { body: REVIEW, cluster: true }).reply);
    // /metrics itself answers while the heavy review holds a worker.
    await waitFor('the heavy review in a worker', async () => (await metric(server.url, /amender_workers_busy/)) === 1);
    const others = [
      track(order, 'healthz', send(server.url, '/healthz').reply),
      track(order, 'readyz', send(server.url, '/readyz').reply),
      track(order, 'metrics', send(server.url, '/metrics').reply),
      track(order, 'light cluster', send(server.url, '/clusters/light/mutate', { body: REVIEW, cluster: true }).reply),
      track(order, 'default set', send(server.url, '/mutate', { body: REVIEW }).reply),
    ];
    const [healthz, readyz, metrics, light, byDefault] = await Promise.all(others);
    expect(order).not.toContain('heavy');
    expect(healthz.status).toBe(200);
    expect(readyz.status).toBe(200);
    expect(metrics.body).toMatch(/^amender_workers_busy \d+$/m);
    // The second worker started when the light reviews found the first one busy (workers start one
    // after the other: src/adapters/pool/pool.ts). On a loaded machine its first review (building the set,
    // compiling on first use) can outlast the spare's 250 ms while the other light review waits: a spare
    // then starts too, as it should (its sets are not the heavy one's).
    const spares = (await metric(server.url, /amender_workers_spare_started_total/)) ?? 0;
    expect((await metric(server.url, /amender_workers/))! - spares).toBe(2);
    expect(labelsPatched(light)).toEqual(['light']);
    expect(labelsPatched(byDefault)).toEqual(['light']);
    // The heavy review itself is answered in full by its worker.
    expect(labelsPatched(await heavy)).toEqual(['heavy']);
    expect(order.at(-1)).toBe('heavy');
  });

  it('starts shutting down on SIGTERM at once, and still answers the review in progress', { timeout: 60_000 }, async () => {
    const order: string[] = [];
    const heavy = track(order, 'heavy', send(server.url, '/clusters/heavy/mutate', { body: REVIEW, cluster: true }).reply);
    await waitFor('the heavy review in a worker', async () => (await metric(server.url, /amender_workers_busy/)) === 1);
    server.child.kill('SIGTERM');
    await waitFor('the shutdown logged', () => server.lines.some((l) => l.msg === 'shutting down'));
    order.push('shutting down');
    expect(labelsPatched(await heavy)).toEqual(['heavy']);
    expect(order).toEqual(['shutting down', 'heavy']);
    expect(await server.exit).toBe(0);
  });
});

describe('a review past its deadline plus the grace period', () => {
  let server: Running;
  beforeAll(async () => {
    // The review would take tens of seconds; a deadline of 2 s leaves ample time for the next one.
    server = await startBundle(serverEnv('heavier', ['light'], { AMENDER_WORKERS: '1', AMENDER_REVIEW_DEADLINE_MS: '2000', AMENDER_WORKER_GRACE_MS: '300' }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is answered by failure policy and its worker is free for the next review', async () => {
    const lateReply = await send(server.url, '/mutate', { body: REVIEW }).reply;
    const late = response(lateReply);
    expect(late.allowed).toBe(false);
    expect(late.status?.message).toContain('heavier');
    expect(late.status?.message).toMatch(/deadline exceeded/);
    expect(labelsPatched(await send(server.url, '/clusters/light/mutate', { body: REVIEW, cluster: true }).reply)).toEqual(['light']);
    expect((await send(server.url, '/healthz').reply).status).toBe(200);
  });
});

describe('a review that exhausts its worker heap', () => {
  let server: Running;
  beforeAll(async () => {
    server = await startBundle(serverEnv('light', [], { AMENDER_WORKERS: '1', AMENDER_WORKER_HEAP_MB: '16' }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is answered by failure policy, the worker is replaced and the server keeps serving', async () => {
    // A Pod of 100,000 containers (about 5 MiB, under the body limit): parsed and merged, it needs far
    // more than the 16 MiB of heap its worker has.
    const review = JSON.parse(REVIEW);
    review.request.object.spec.containers = Array.from({ length: 100_000 }, (_, i) => ({ name: `c${i}`, image: 'registry.example.com/app:1' }));
    const big = send(server.url, '/mutate', { body: JSON.stringify(review) });
    const stopped = response(await big.reply);
    expect(stopped.allowed).toBe(false);
    expect(stopped.status?.message).toContain("policy 'light'");
    expect(await metric(server.url, /amender_workers_replaced_total\{reason="heap"\}/)).toBe(1);
    // The process lives and its new worker answers the next review.
    expect((await send(server.url, '/healthz').reply).status).toBe(200);
    expect(labelsPatched(await send(server.url, '/mutate', { body: REVIEW }).reply)).toEqual(['light']);
    expect(await metric(server.url, /amender_workers/)).toBe(1);
    // Log lines are written in batches (src/adapters/node-log.ts).
    await waitFor('the worker replaced line', () => server.lines.some((l) => l.msg === 'review worker replaced' && l.reason === 'heap'));
  });
});

describe('a review whose client went away', () => {
  let server: Running;
  beforeAll(async () => {
    server = await startBundle(serverEnv('light', ['heavier', 'heavy', 'light'], { AMENDER_WORKERS: '2', AMENDER_WORKER_GRACE_MS: '200' }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is cancelled, and its worker takes the next review before a shorter review that kept its client ends', { timeout: 60_000 }, async () => {
    const order: string[] = [];
    // Both workers busy: the abandoned review would run four times as long as the kept one.
    const abandoned = send(server.url, '/clusters/heavier/mutate', { body: REVIEW, cluster: true });
    abandoned.reply.catch(() => {});
    await waitFor('the abandoned review in a worker', async () => (await metric(server.url, /amender_workers_busy/)) === 1);
    const kept = track(order, 'kept heavy', send(server.url, '/clusters/heavy/mutate', { body: REVIEW, cluster: true }).reply);
    await waitFor('both workers busy', async () => (await metric(server.url, /amender_workers_busy/)) === 2);
    abandoned.abort();
    const next = track(order, 'next', send(server.url, '/clusters/light/mutate', { body: REVIEW, cluster: true }).reply);
    expect(labelsPatched(await next)).toEqual(['light']);
    expect(labelsPatched(await kept)).toEqual(['heavy']);
    expect(order).toEqual(['next', 'kept heavy']);
  });
});

describe("one cluster's flood of reviews", () => {
  let server: Running;
  beforeAll(async () => {
    server = await startBundle(serverEnv('light', ['flood', 'light'], { AMENDER_WORKERS: '1', AMENDER_REVIEW_QUEUE_LIMIT: '4' }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("neither fills the queue against another cluster nor makes its review wait for the flood's backlog", { timeout: 60_000 }, async () => {
    const order: string[] = [];
    const flood = [track(order, 'flood', send(server.url, '/clusters/flood/mutate', { body: REVIEW, cluster: true }).reply)];
    await waitFor('the first flood review in the worker', async () => (await metric(server.url, /amender_workers_busy/)) === 1);
    for (let i = 0; i < 4; i++) flood.push(track(order, 'flood', send(server.url, '/clusters/flood/mutate', { body: REVIEW, cluster: true }).reply));
    await waitFor('the queue full of the flood', async () => (await metric(server.url, /amender_review_queue_length/)) === 4);
    const light = track(order, 'light', send(server.url, '/clusters/light/mutate', { body: REVIEW, cluster: true }).reply);
    // Before: 503 (all 1 review workers are busy and 4 reviews are waiting).
    expect(labelsPatched(await light)).toEqual(['light']);
    const floods = await Promise.all(flood);
    // The flood's newest review made room for it ...
    const shed = floods.filter((r) => r.status === 503);
    expect(shed).toHaveLength(1);
    expect(JSON.parse(shed[0].body).message).toMatch(/this policy set had the most reviews in it \(4 of 4\): its newest made room for another set's review/);
    expect(await metric(server.url, /amender_review_queue_shed_total\{cluster="flood"\}/)).toBe(1);
    for (const reply of floods.filter((r) => r.status !== 503)) expect(labelsPatched(reply)).toEqual(['flood']);
    // ... and it was answered at its turn (or by a spare worker), before the flood reviews queued ahead
    // of it (first in, first out, it would have been last).
    expect(order.slice(order.indexOf('light') + 1).length).toBeGreaterThanOrEqual(2);
  });
});

describe("one cluster's reviews holding every worker", () => {
  let server: Running;
  beforeAll(async () => {
    server = await startBundle(serverEnv('light', ['heavy', 'light'], { AMENDER_WORKERS: '1' }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("start a spare worker for another cluster's review, which does not wait for them", { timeout: 60_000 }, async () => {
    const order: string[] = [];
    const heavy = track(order, 'heavy', send(server.url, '/clusters/heavy/mutate', { body: REVIEW, cluster: true }).reply);
    await waitFor('the heavy review in the worker', async () => (await metric(server.url, /amender_workers_busy/)) === 1);
    const light = track(order, 'light', send(server.url, '/clusters/light/mutate', { body: REVIEW, cluster: true }).reply);
    // Before: the light review waited for the heavy one (seconds; up to the deadline for a review that runs to it).
    expect(labelsPatched(await light)).toEqual(['light']);
    expect(order).toEqual(['light']);
    expect(await metric(server.url, /amender_workers_spare_started_total/)).toBe(1);
    expect(await metric(server.url, /amender_workers/)).toBe(2);
    await waitFor('the spare worker line', () => server.lines.some((l) => l.msg === 'spare review worker started' && JSON.stringify(l.busyWith) === '["clusters/heavy"]'));
    expect(labelsPatched(await heavy)).toEqual(['heavy']);
  });
});

describe('long reviews holding every worker of the one policy set', () => {
  let server: Running;
  beforeAll(async () => {
    server = await startBundle(serverEnv('mixed', [], { AMENDER_WORKERS: '2' }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("start a spare worker for the set's other reviews, which do not wait for them", { timeout: 60_000 }, async () => {
    const order: string[] = [];
    const slowPod = REVIEW.replace('"app": "checkout"', '"app": "slow"');
    const slow = [1, 2].map((i) => track(order, `slow ${i}`, send(server.url, '/mutate', { body: slowPod }).reply));
    await waitFor('both workers on a slow review', async () => (await metric(server.url, /amender_workers_busy/)) === 2);
    const quick = [1, 2, 3].map((i) => track(order, `quick ${i}`, send(server.url, '/mutate', { body: REVIEW }).reply));
    // Before: the quick reviews waited for a slow one to end (seconds; up to the deadline for reviews that run to it).
    for (const reply of await Promise.all(quick)) expect(labelsPatched(reply)).toEqual(['mixed']);
    expect(order.filter((name) => name.startsWith('slow'))).toEqual([]);
    expect(await metric(server.url, /amender_workers_spare_started_total/)).toBe(1);
    await waitFor('the spare worker line', () => server.lines.some((l) => l.msg === 'spare review worker started' && l.heldByLongReviews === true));
    for (const reply of await Promise.all(slow)) expect(labelsPatched(reply)).toEqual(['mixed']);
  });
});
