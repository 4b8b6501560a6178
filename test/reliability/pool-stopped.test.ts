/**
 * The built Node server (dist/node/main.js) under a burst of large reviews that wait past their deadline:
 * their answers by failure policy would each parse the whole body on the main thread (2 MiB here, some
 * 100–500 ms each), holding /healthz and every other client. Beyond the main thread's budget for it they
 * are answered 503 at once, unread (the webhook's failurePolicy applies), counted in
 * amender_reviews_stopped_total{answer="overloaded"}; a small review is answered by failure policy as before.
 * Assertions are about outcomes and counts, never about durations.
 */
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../node/built.js';
import { startBundle, waitFor, type Running } from '../node/bundle.js';
import { labelPolicy, SLOW_CONDITION } from './helpers/label-policy.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');

/** The pod-create review with 160,000 more labels: 2 MiB, estimated 500 ms of the main thread to parse. */
function largeReview(): string {
  const review = JSON.parse(REVIEW) as { request: { object: { metadata: { labels?: Record<string, string> } } } };
  const metadata = review.request.object.metadata;
  metadata.labels = { ...metadata.labels, ...Object.fromEntries(Array.from({ length: 160_000 }, (_, i) => [`k${i}`, 'v'])) };
  return JSON.stringify(review);
}

function post(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL('/mutate', url), { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
    req.end(body);
  });
}

async function metrics(url: string): Promise<string> {
  return (await fetch(new URL('/metrics', url))).text();
}

async function metric(url: string, series: string): Promise<number> {
  const m = new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(await metrics(url));
  return m ? Number(m[1]) : 0;
}

let dir: string;
let server: Running;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'amender-pool-stopped-'));
  // Seconds of review for every Pod (15 million comprehension steps): the one worker runs to the deadline.
  writeFileSync(join(dir, 'policies.yaml'), labelPolicy('slow', 'slow', 1500, SLOW_CONDITION));
  server = await startBundle({
    AMENDER_POLICY_SOURCES: `file://${dir}`,
    AMENDER_REFRESH_SECONDS: '0',
    AMENDER_WORKERS: '1',
    AMENDER_REVIEW_DEADLINE_MS: '2000',
    AMENDER_BODY_BUDGET_MB: '128',
  });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('large reviews that wait past their deadline on the Node server', () => {
  it('are answered 503 beyond the main thread budget; a small one by failure policy, /healthz all along', { timeout: 90_000 }, async () => {
    const held = post(server.url, REVIEW);
    await waitFor('the first review in the worker', async () => (await metric(server.url, 'amender_workers_busy')) === 1);
    const large = largeReview();
    expect(large.length).toBeGreaterThan(1.9 * 2 ** 20);
    let probing = true;
    const healthz: number[] = [];
    const probe = (async () => {
      while (probing) {
        healthz.push((await fetch(new URL('/healthz', server.url))).status);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const sent = Promise.all(Array.from({ length: 12 }, () => post(server.url, large)));
    // A small review behind them.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const small = await post(server.url, REVIEW);
    const replies = await sent;
    probing = false;
    await probe;

    const overloaded = replies.filter((r) => r.status === 503);
    for (const reply of replies) {
      expect([200, 503], reply.body).toContain(reply.status);
      if (reply.status === 503) expect(JSON.parse(reply.body).message).toMatch(/overloaded with large reviews: it was not evaluated by its deadline, and this one \(2\.\d MiB\) is answered without reading it again/);
    }
    // Only one worker: most waited past their deadline; none of them was parsed on the main thread.
    expect(overloaded.length).toBeGreaterThanOrEqual(6);
    expect(await metric(server.url, 'amender_reviews_stopped_total{answer="overloaded"}')).toBe(overloaded.length);
    // The small review: answered by its policy (or its failurePolicy at its deadline), never refused.
    expect(small.status).toBe(200);
    expect((await held).status).toBe(200);
    expect(healthz.length).toBeGreaterThan(0);
    expect(healthz.every((status) => status === 200)).toBe(true);
  });
});
