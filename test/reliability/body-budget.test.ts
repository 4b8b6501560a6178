/**
 * The body budget in the built Node server (dist/node/main.js): AMENDER_BODY_BUDGET_MB is read and logged,
 * a review whose body would pass the budget waits, unread, for the one before it, and is answered after it,
 * patched; /metrics shows it waiting. Assertions are about order and outcomes, never durations.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../node/built.js';
import { startBundle, waitFor, type Running } from '../node/bundle.js';
import { labelPolicy, SLOW_CONDITION } from './helpers/label-policy.js';

const REVIEW = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8'));

/** A pod-create review of about 600 KB (an annotation pads it), its Pod labelled `app: <app>`. */
function largeReview(uid: string, app: string): string {
  const review = structuredClone(REVIEW);
  review.request.uid = uid;
  review.request.object.metadata.labels.app = app;
  review.request.object.metadata.annotations = { pad: 'x'.repeat(600_000) };
  return JSON.stringify(review);
}

let dir: string;
let server: Running;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'amender-budget-'));
  // Seconds of work for a Pod labelled app: slow, quick for the others. The deadline is far past that work
  // on a loaded host: at 25 s, under the full suite (load average 20 on 2 CPUs) the slow review ran 17-25 s
  // and was at times stopped at its deadline, answered allowed: false (failurePolicy Fail).
  writeFileSync(join(dir, 'policies.yaml'), labelPolicy('budget', 'budget', 400, `object.metadata.labels.app != "slow" || ${SLOW_CONDITION}`, 8));
  server = await startBundle({ AMENDER_POLICY_SOURCES: `file://${dir}`, AMENDER_REFRESH_SECONDS: '0', AMENDER_REVIEW_DEADLINE_MS: '240000', AMENDER_BODY_BUDGET_MB: '1' });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
}

describe('the body budget of the built server', () => {
  it('holds a review whose body would pass AMENDER_BODY_BUDGET_MB until the one before it is answered', { timeout: 300_000 }, async () => {
    expect(server.lines.find((l) => l.msg === 'listening')).toMatchObject({ bodyBudgetMb: 1 });
    expect(await metric('amender_request_body_budget_bytes')).toBe(2 ** 20);
    const order: string[] = [];
    const post = (body: string, name: string) =>
      fetch(`${server.url}/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (reply) => {
        order.push(name);
        return { status: reply.status, review: (await reply.json()) as { response: unknown } };
      });
    const slow = post(largeReview('slow', 'slow'), 'slow');
    await waitFor('the slow review held', async () => (await metric('amender_request_body_bytes_held')) > 500_000);
    // 600 KB more would pass 1 MiB: the quick review waits for the slow one, though a worker is free.
    const quick = post(largeReview('quick', 'quick'), 'quick');
    await waitFor('the quick review waiting', async () => (await metric('amender_requests_waiting_for_body_budget')) === 1);
    const [slowReply, quickReply] = await Promise.all([slow, quick]);
    expect(order).toEqual(['slow', 'quick']);
    for (const reply of [slowReply, quickReply]) {
      expect(reply.status).toBe(200);
      expect(reply.review.response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    }
    expect(await metric('amender_request_body_bytes_held')).toBe(0);
    expect(await metric('amender_requests_refused_body_budget_total')).toBe(0);
  });
});
