/**
 * The built Workers bundle (dist/workers/index.js) in workerd through miniflare, reading its policies
 * from an R2 bucket binding, asked over loopback HTTP: every reply equals the built Node server's for
 * the same calls and policies. Also: the bundled set, the first load shared by concurrent first requests,
 * a refresh in the background of a request (ctx.waitUntil), and configuration errors.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelPolicy, patchOf } from '../sources/helpers.js';
import { askAll, comparable, corpusPolicyFiles, ensureBuilt, httpCases, nodeReference, policyFolder, WORKERS_BUNDLE, type HttpReply } from './helpers.js';
import { startWorker, type RunningWorker } from './workers.js';
import { waitFor } from '../node/bundle.js';

const cases = httpCases();
const files = corpusPolicyFiles();
const objects = Object.fromEntries(files.map((f) => [`corpus/${f.name}`, f.text]));

beforeAll(() => ensureBuilt());

const patchPaths = (reply: HttpReply) => patchOf(reply.body as { response?: { patch?: string } }).map((op) => (op as { path: string }).path);

describe('Workers bundle with policies in R2', () => {
  let worker: RunningWorker;
  let folder: { dir: string; dispose: () => void };
  let reference: { replies: HttpReply[]; readyz: HttpReply };
  beforeAll(async () => {
    folder = policyFolder(files);
    [worker, reference] = await Promise.all([
      startWorker({ AMENDER_POLICY_SOURCES: 'r2://POLICIES/corpus', AMENDER_REFRESH_SECONDS: '1' }, objects),
      nodeReference(cases, `file://${folder.dir}`),
    ]);
  });
  afterAll(async () => {
    await worker?.dispose();
    folder?.dispose();
  });

  it('answers every call like the Node server reading the same files', async () => {
    expect(patchPaths(reference.replies[0]).length).toBeGreaterThan(0);
    expect(patchPaths(reference.replies[1]).length).toBeGreaterThan(0); // the Kyverno foreach policy acted
    const replies = await askAll(worker.origin, cases);
    for (const [i, c] of cases.entries()) expect(replies[i], c.name).toEqual(reference.replies[i]);
    const [ready] = await askAll(worker.origin, [{ name: 'readyz', method: 'GET', path: '/readyz' }]);
    expect(ready.status).toBe(200);
    expect((ready.body as { counts: unknown }).counts).toEqual((reference.readyz.body as { counts: unknown }).counts);
    expect((ready.body as { source: string }).source).toBe('r2://POLICIES/corpus');
    expect(worker.logs.filter((l) => l.msg === 'policy set applied')).toHaveLength(1);
  });

  it('refreshes a stale set in the background of a request and serves the new one after', async () => {
    await worker.bucket.put('corpus/zz-rollout.yaml', labelPolicy('zz-rollout', 'rolled-out', 'yes'));
    let seen = false;
    for (let attempt = 0; attempt < 20 && !seen; attempt++) {
      await new Promise((r) => setTimeout(r, 300));
      const [reply] = await askAll(worker.origin, [cases[0]]);
      expect(reply.status).toBe(200);
      seen = patchPaths(reply).includes('/metadata/labels/rolled-out');
    }
    expect(seen).toBe(true);
    expect(worker.logs.filter((l) => l.level === 'error')).toEqual([]);
    await worker.bucket.delete('corpus/zz-rollout.yaml');
  });

  it('answers /metrics with the refresh figures of the set', async () => {
    const response = await fetch(new URL('/metrics', worker.origin));
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toMatch(/^amender_policy_refresh_total\{policy_set="default"\} [1-9]/m);
    expect(text).toMatch(/^amender_policy_documents\{policy_set="default"\} \d+/m);
  });
});

describe('Workers bundle, first requests of an isolate', () => {
  it('shares one first load between concurrent requests', async () => {
    const worker = await startWorker({ AMENDER_POLICY_SOURCES: 'r2://POLICIES/corpus' }, objects);
    try {
      const body = cases[0].body!;
      const replies = await Promise.all(
        Array.from({ length: 6 }, () => fetch(new URL('/mutate', worker.origin), { method: 'POST', body, headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(15_000) })),
      );
      const bodies = await Promise.all(replies.map((r) => r.json()));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
      expect(patchPaths({ status: 200, contentType: null, body: bodies[0] }).length).toBeGreaterThan(0);
      expect(worker.logs.filter((l) => l.msg === 'policy set applied')).toHaveLength(1);
      // workerd warns when a promise crosses request contexts in a way that can hang; none here.
      expect(worker.other.filter((l) => /different request|will never generate a response/i.test(l))).toEqual([]);
    } finally {
      await worker.dispose();
    }
  });

  it('answers 500 to a source whose binding is not declared, and logs which, without quoting the settings to the caller', async () => {
    const worker = await startWorker({ AMENDER_POLICY_SOURCES: 'r2://MISSING/corpus' });
    try {
      const response = await fetch(new URL('/mutate', worker.origin), { method: 'POST', body: cases[0].body, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(500);
      expect(((await response.json()) as { message: string }).message).toBe("amender is misconfigured: its settings are invalid (the Worker's log says which)");
      await waitFor('the invalid configuration line', () => worker.logs.some((l) => l.msg === 'invalid configuration'));
      expect(worker.logs.find((l) => l.msg === 'invalid configuration')?.error).toBe(
        'invalid configuration:\n  AMENDER_POLICY_SOURCES: policy source r2://MISSING/corpus: r2://MISSING/corpus: the binding is not an R2 bucket (declare it under r2_buckets in wrangler.toml)',
      );
    } finally {
      await worker.dispose();
    }
  });
});

describe('Workers bundle with the bundled set', () => {
  it('answers every call like the Node server with its bundled set', async () => {
    const [worker, reference] = await Promise.all([startWorker({}), nodeReference(cases)]);
    try {
      const replies = await askAll(worker.origin, cases);
      for (const [i, c] of cases.entries()) expect(replies[i], c.name).toEqual(reference.replies[i]);
      const [ready] = await askAll(worker.origin, [{ name: 'readyz', method: 'GET', path: '/readyz' }]);
      expect(comparable(ready)).toEqual(comparable(reference.readyz));
    } finally {
      await worker.dispose();
    }
  });
});

describe('Workers bundle with AMENDER_BASE_PATH (a route under a path keeps it in the URL)', () => {
  it('answers every call under the base path as without it, still answers without it, and takes off only whole segments', async () => {
    const worker = await startWorker({ AMENDER_BASE_PATH: '/amender' });
    try {
      const plain = await askAll(worker.origin, cases);
      const prefixed = await askAll(worker.origin, cases.map((c) => ({ ...c, path: `/amender${c.path}` })));
      expect(plain[0].status).toBe(200);
      for (const [i, c] of cases.entries()) expect(prefixed[i], c.name).toEqual(plain[i]);
      const [longer, root] = await askAll(worker.origin, [
        { ...cases[0], path: '/amenders/mutate' },
        { name: 'root', method: 'GET', path: '/amender' },
      ]);
      expect([longer.status, root.status]).toEqual([404, 404]);
    } finally {
      await worker.dispose();
    }
  });

  it('answers 500 and logs the problem when the base path is not one', async () => {
    const worker = await startWorker({ AMENDER_BASE_PATH: 'amender/' });
    try {
      const response = await fetch(new URL('/amender/healthz', worker.origin));
      expect(response.status).toBe(500);
      await waitFor('the invalid configuration line', () => worker.logs.some((l) => l.msg === 'invalid configuration'));
      expect(String(worker.logs.find((l) => l.msg === 'invalid configuration')?.error)).toContain('AMENDER_BASE_PATH: expected a path prefix such as /amender');
    } finally {
      await worker.dispose();
    }
  });
});

describe('the Workers bundle itself', () => {
  it('imports no Node built-in module', () => {
    const text = readFileSync(WORKERS_BUNDLE, 'utf8');
    expect(text.match(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)["'](node:[^"']+)["']/g) ?? []).toEqual([]);
  });
});

describe('Workers bundle, its body budget', () => {
  const review = JSON.parse(readFileSync(new URL('../fixtures/reviews/pod-create.json', import.meta.url), 'utf8'));
  /** The pod-create review padded to about 600 KB, as bytes. */
  const largeReview = (uid: string) => {
    const padded = structuredClone(review);
    padded.request.uid = uid;
    padded.request.object.metadata.annotations = { pad: 'x'.repeat(600_000) };
    return new TextEncoder().encode(JSON.stringify(padded));
  };
  const post = (origin: string, body: Uint8Array | ReadableStream<Uint8Array>, length: number) =>
    fetch(`${origin}/mutate`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'content-length': String(length) }, duplex: 'half' } as RequestInit);

  it('holds a review whose body would pass AMENDER_BODY_BUDGET_MB, unread, until the one before it is answered', { timeout: 60_000 }, async () => {
    const worker = await startWorker({ AMENDER_BODY_BUDGET_MB: '1' });
    try {
      const metric = async (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await (await fetch(`${worker.origin}/metrics`)).text())?.[1]);
      expect(await metric('amender_request_body_budget_bytes')).toBe(2 ** 20);
      // The first body arrives but for its last bytes, which the test holds back.
      const first = largeReview('first');
      let release!: () => void;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(first.subarray(0, first.length - 1000));
          release = () => {
            controller.enqueue(first.subarray(first.length - 1000));
            controller.close();
          };
        },
      });
      const order: string[] = [];
      const firstReply = post(worker.origin, stream, first.length).then((r) => (order.push('first'), r));
      await waitFor('the first body held', async () => (await metric('amender_request_body_bytes_held')) === first.length);
      const second = largeReview('second');
      const secondReply = post(worker.origin, second, second.length).then((r) => (order.push('second'), r));
      await waitFor('the second review waiting', async () => (await metric('amender_requests_waiting_for_body_budget')) === 1);
      release();
      for (const reply of [await firstReply, await secondReply]) {
        expect(reply.status).toBe(200);
        expect(((await reply.json()) as { response: unknown }).response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
      }
      expect(order).toEqual(['first', 'second']);
      expect(await metric('amender_request_body_bytes_held')).toBe(0);
    } finally {
      await worker.dispose();
    }
  });
});
