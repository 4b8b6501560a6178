/**
 * The review pool's batches (src/adapters/pool): reviews that arrive together cross to a worker together
 * and are answered as in-process, and a review running long gives the reviews batched behind it back to
 * the queue, so that a free worker answers them long before it ends.
 */
import { describe, expect, it } from 'vitest';
import { createApp, resolveLimits, type ReviewJob } from '../../src/server/index.js';
import { waitFor } from './bundle.js';
import { metric, poolGauges, post as postWith, REVIEW, testPools, UPDATE_REVIEW, type App } from './pool-harness.js';
import { labelPolicy, refresherState, SLOW_CONDITION } from '../reliability/helpers/label-policy.js';

const pool = testPools();

function post(app: App, body = REVIEW): Promise<Response> {
  return postWith(app, undefined, body);
}

/** A review's `uid` made unique, so that each answer can be told from the others. */
function withUid(body: string, uid: string): string {
  return body.replace(/"uid": "[^"]*"/, `"uid": "${uid}"`);
}

describe('batches of the review pool', () => {
  it('hands reviews that arrive together to its worker in fewer messages, each answered as in-process', { timeout: 60_000 }, async () => {
    const reviews = pool({ workers: 1, queueLimit: 64 });
    const state = refresherState(labelPolicy('labelled', 'labelled', 1));
    const inProcess = createApp({ policies: () => state });
    const pooled = createApp({ policies: () => state, reviewer: reviews.reviewer });
    reviews.registerMetrics(pooled.metrics.registry);
    const bodies = Array.from({ length: 12 }, (_, i) => withUid(i % 3 === 0 ? UPDATE_REVIEW : REVIEW, `uid-${i}`));
    const answers = await Promise.all(bodies.map((body) => post(pooled, body)));
    const expected = await Promise.all(bodies.map((body) => post(inProcess, body)));
    for (let i = 0; i < bodies.length; i++) {
      expect(answers[i].status).toBe(200);
      expect(await answers[i].json()).toEqual(await expected[i].json());
    }
    const batches = metric(pooled, 'amender_review_batches_total');
    expect(batches).toBeGreaterThan(0);
    expect(batches).toBeLessThan(bodies.length);
  });

  it('answers reviews of three versions of a set arriving together (a worker keeps two)', { timeout: 60_000 }, async () => {
    const reviews = pool({ workers: 1, queueLimit: 64 });
    const apps = [1, 2, 3].map((generation) => {
      const state = refresherState(labelPolicy(`v${generation}`, `v${generation}`, 1), generation);
      return createApp({ policies: () => state, reviewer: reviews.reviewer });
    });
    // Interleaved, as reviews read before and after two quick reloads would be.
    const sent = [0, 1, 2, 0, 1, 2].map((v, i) => ({ v, answer: post(apps[v], withUid(REVIEW, `uid-${i}`)) }));
    for (const { v, answer } of sent) {
      const reply = await answer;
      expect(reply.status).toBe(200);
      const { response } = (await reply.json()) as { response: { patch: string } };
      expect(Buffer.from(response.patch, 'base64').toString()).toContain(`/metadata/labels/v${v + 1}`);
    }
  });

  it('sends the answers it holds while a later review of its batch runs long', { timeout: 60_000 }, async () => {
    const reviews = pool({ workers: 1, queueLimit: 64 });
    const state = refresherState(labelPolicy('slow', 'slow', 1500, SLOW_CONDITION));
    const app = createApp({ policies: () => state, reviewer: reviews.reviewer, limits: { reviewDeadlineMs: 60_000 } });
    reviews.registerMetrics(app.metrics.registry);
    await post(app, UPDATE_REVIEW); // the worker holds the set
    // One batch: the quick review, then the slow one.
    const quick = post(app, withUid(UPDATE_REVIEW, 'quick'));
    const slow = post(app, withUid(REVIEW, 'slow'));
    expect((await quick).status).toBe(200);
    // Its answer came while the worker was still on the slow review.
    expect(metric(app, 'amender_workers_busy')).toBe(1);
    expect((await slow).status).toBe(200);
    expect(metric(app, 'amender_review_batches_total')).toBe(2);
  });

  it('takes back the reviews a batch has not started when one of it runs long', { timeout: 60_000 }, async () => {
    const reviews = pool({ workers: 2, queueLimit: 64, staggerMs: 0 });
    // Seconds of review for a CREATE; an UPDATE is not matched and answered at once.
    const state = refresherState(labelPolicy('slow', 'slow', 1500, SLOW_CONDITION));
    const app = createApp({ policies: () => state, reviewer: reviews.reviewer, limits: { reviewDeadlineMs: 60_000 } });
    reviews.registerMetrics(app.metrics.registry);
    await waitFor('both workers started', () => metric(app, 'amender_workers') === 2);
    // Both workers hold the set once each has answered a review.
    await Promise.all([post(app, UPDATE_REVIEW), post(app, UPDATE_REVIEW)]);
    const order: string[] = [];
    // Arriving together, the four are split between the two free workers: the slow review and the first
    // quick one to one, the two other quick ones to the other.
    const slow = post(app, withUid(REVIEW, 'slow')).then((r) => (order.push('slow'), r));
    const quick = [1, 2, 3].map((i) => post(app, withUid(UPDATE_REVIEW, `quick-${i}`)).then((r) => (order.push(`quick-${i}`), r)));
    for (const answer of await Promise.all(quick)) expect(answer.status).toBe(200);
    expect(order).not.toContain('slow');
    expect((await slow).status).toBe(200);
    expect(order.at(-1)).toBe('slow');
  });

  it('sends a large review alone, and batches small ones up to a bound on their bodies', { timeout: 60_000 }, async () => {
    const reviews = pool({ workers: 1, queueLimit: 64 });
    const state = refresherState(labelPolicy('labelled', 'labelled', 1));
    const app = createApp({ policies: () => state, reviewer: reviews.reviewer });
    reviews.registerMetrics(app.metrics.registry);
    await post(app); // the worker holds the set
    // Six reviews of 1.2 MB arriving together: a worker holds its batch's bodies until the batch ends (and a
    // worker taking back a batch's reviews, a second copy), so each crosses alone.
    const large = (i: number) => withUid(REVIEW, `large-${i}`).replace('"metadata": {', `"metadata": {"annotations": {"pad": "${'x'.repeat(1_200_000)}"},`);
    const before = metric(app, 'amender_review_batches_total');
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(app, large(i))));
    for (const answer of answers) expect(answer.status).toBe(200);
    expect(metric(app, 'amender_review_batches_total') - before).toBe(6);
    // Twelve of 300 KB: three fit in a batch's bound, four do not.
    const medium = (i: number) => withUid(REVIEW, `medium-${i}`).replace('"metadata": {', `"metadata": {"annotations": {"pad": "${'x'.repeat(300_000)}"},`);
    const middle = metric(app, 'amender_review_batches_total');
    const mediumAnswers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(app, medium(i))));
    for (const answer of mediumAnswers) expect(answer.status).toBe(200);
    expect(metric(app, 'amender_review_batches_total') - middle).toBeGreaterThanOrEqual(4);
    expect(metric(app, 'amender_review_batches_total') - middle).toBeLessThan(12);
  });

  it('hands a worker that answers its batch the reviews waiting before the replies of that batch go out', { timeout: 60_000 }, async () => {
    const reviews = pool({ workers: 1, queueLimit: 64 });
    const gauge = poolGauges(reviews);
    const state = refresherState(labelPolicy('labelled', 'labelled', 1));
    const job = (i: number): ReviewJob => ({ body: withUid(REVIEW, `uid-${i}`), setName: 'default', state, limits: resolveLimits({}), signal: new AbortController().signal });
    // More than a batch (16) waits. Where each answer's code runs (as a reply would be written), the worker
    // is on the next batch whenever reviews wait: not idle until the end of the event loop's turn.
    const seen: { waiting: number; busy: number }[] = [];
    const answers = Array.from({ length: 40 }, (_, i) =>
      reviews.reviewer(job(i)).then((answer) => {
        seen.push({ waiting: gauge('amender_review_queue_length'), busy: gauge('amender_workers_busy') });
        return answer;
      }),
    );
    for (const answer of await Promise.all(answers)) expect(answer.status).toBe(200);
    const whileWaiting = seen.filter((s) => s.waiting > 0);
    expect(whileWaiting.length).toBeGreaterThan(0);
    expect(whileWaiting.filter((s) => s.busy !== 1)).toEqual([]);
  });
});
