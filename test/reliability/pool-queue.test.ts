/**
 * The review pool of the built Node server, beyond isolation: reviews wait in the queue when every worker
 * is busy and are answered in turn; a reloaded set reaches the workers (each reply is from one version).
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

function post(url: string, body: string, path = '/mutate'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function labels(reply: { status: number; body: string }): string[] {
  expect(reply.status, reply.body).toBe(200);
  const patch = JSON.parse(reply.body).response.patch as string | undefined;
  if (!patch) return [];
  return (JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as { path: string }[]).map((op) => op.path.replace('/metadata/labels/', ''));
}

async function metric(url: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(new URL('/metrics', url))).text();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

let dir: string;
let server: Running;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'amender-pool-queue-'));
  writeFileSync(join(dir, 'policies.yaml'), labelPolicy('p', 'first', 150, SLOW_CONDITION));
  server = await startBundle({ AMENDER_POLICY_SOURCES: `file://${dir}`, AMENDER_REFRESH_SECONDS: '0', AMENDER_WORKERS: '1', AMENDER_REVIEW_DEADLINE_MS: '25000' });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the review pool of the Node server', () => {
  // A deadline far above the reviews' time: on a loaded machine they are slow, never stopped.
  it('queues reviews while its one worker is busy and answers them in turn', { timeout: 60_000 }, async () => {
    const order: string[] = [];
    const first = post(server.url, REVIEW).then((r) => (order.push('first'), r));
    await waitFor('the first review in the worker', async () => (await metric(server.url, 'amender_workers_busy')) === 1);
    const second = post(server.url, REVIEW).then((r) => (order.push('second'), r));
    await waitFor('the second review queued', async () => (await metric(server.url, 'amender_review_queue_length')) === 1);
    expect(labels(await first)).toEqual(['first']);
    expect(labels(await second)).toEqual(['first']);
    expect(order).toEqual(['first', 'second']);
    expect(await metric(server.url, 'amender_review_queue_length')).toBe(0);
  });

  it('evaluates a reloaded set in its workers, whole', async () => {
    writeFileSync(join(dir, 'policies.yaml'), labelPolicy('p', 'second', 1));
    server.child.kill('SIGHUP');
    await waitFor('the new set applied', () => server.lines.filter((l) => l.msg === 'policy set applied').length === 2);
    expect(labels(await post(server.url, REVIEW))).toEqual(['second']);
    expect(await metric(server.url, 'amender_workers_replaced_total')).toBeUndefined();
  });
});
