/**
 * The main thread's work on stopped reviews (pool/stopped.ts parses the whole body there) is bounded: many
 * large reviews that wait past their deadline together are answered by failure policy only within the
 * main thread's budget (stopped-budget.ts), the others 503 at once; a small one is answered by failure
 * policy as before; and a review whose client left while the main thread answered others costs nothing.
 */
import { describe, expect, it } from 'vitest';
import { StoppedBudget, type AnswerStopped, type ReviewPool } from '../../src/adapters/pool/index.js';
import { createApp, resolveLimits, type ReviewAnswer, type ReviewJob } from '../../src/server/index.js';
import { waitFor } from './bundle.js';
import { REVIEW, testPools } from './pool-harness.js';
import { labelPolicy, refresherState, SLOW_CONDITION } from '../reliability/helpers/label-policy.js';

const pool = testPools();

/** The pod-create review with `labels` more labels: about 13 bytes each. */
function largeReview(labels: number): Uint8Array {
  const review = JSON.parse(REVIEW) as { request: { object: { metadata: { labels?: Record<string, string> } } } };
  const metadata = review.request.object.metadata;
  metadata.labels = { ...metadata.labels, ...Object.fromEntries(Array.from({ length: labels }, (_, i) => [`k${i}`, 'v'])) };
  return new TextEncoder().encode(JSON.stringify(review));
}

/** Seconds of review (15 million comprehension steps): the one worker stays busy while the others wait. */
const SLOW = refresherState(labelPolicy('slow', 'slow', 1500, SLOW_CONDITION));

function job(body: ReviewJob['body'], deadlineMs: number, signal = new AbortController().signal): ReviewJob {
  return { body, setName: 'default', state: SLOW, limits: resolveLimits({ reviewDeadlineMs: deadlineMs }), signal };
}

/** A pool whose one worker is held by a long review, the gauges of its metrics, and the long review's answer. */
async function heldPool(reviews: ReviewPool): Promise<{ gauge: (name: string) => number; metrics: () => string; held: Promise<ReviewAnswer> }> {
  const app = createApp({ policies: () => SLOW });
  reviews.registerMetrics(app.metrics.registry);
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(app.metrics.registry.render())?.[1] ?? 0);
  const held = reviews.reviewer(job(new TextEncoder().encode(REVIEW), 60_000));
  await waitFor('the long review in the worker', () => gauge('amender_workers_busy') === 1);
  return { gauge, metrics: () => app.metrics.registry.render(), held };
}

/** Holds the main thread until `ms` from now: reviews whose deadlines pass meanwhile expire together. */
function holdThread(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** An injected stopped answer (a denial) that counts its calls: each is a body parsed on the main thread. */
function countingAnswer(calls: { count: number }, onCall?: () => void): AnswerStopped {
  return (_set, _request, _ordinal, reason) => {
    calls.count++;
    onCall?.();
    return { allowed: false, status: { code: 403, message: `stopped (${reason})` }, outcomes: [], warnings: [], auditAnnotations: {} };
  };
}

describe('the answers to stopped reviews', () => {
  it('parses large bodies within a budget and answers the others 503 at once; a small one as before', { timeout: 60_000 }, async () => {
    const calls = { count: 0 };
    const reviews = pool({ queueLimit: 64, answerStopped: countingAnswer(calls) });
    const { gauge, metrics, held } = await heldPool(reviews);
    const large = largeReview(85_000); // 1.04 MiB: estimated 260 ms of the main thread each
    expect(large.length).toBeGreaterThan(1.0 * 2 ** 20);
    expect(large.length).toBeLessThan(1.1 * 2 ** 20);
    const answers = Array.from({ length: 12 }, () => reviews.reviewer(job(large, 300)));
    const small = reviews.reviewer(job(new TextEncoder().encode(REVIEW), 300));
    expect(gauge('amender_review_queue_length')).toBe(13);
    // All thirteen deadlines pass while the thread is held: they expire together.
    holdThread(400);

    // The small review: answered by failure policy (the injected answer), as always.
    const smallAnswer = await small;
    expect(smallAnswer.status).toBe(200);
    expect(smallAnswer.status === 200 && smallAnswer.outcome).toBe('denied');
    const settled = await Promise.all(answers);
    const full = settled.filter((a) => a.status === 200);
    const refused = settled.filter((a) => a.status === 503);
    expect(full.length + refused.length).toBe(12);
    // 300 ms of budget at once, 260 ms estimated each: one parsed (a few where parsing takes 10–20 ms),
    // the rest refused unparsed.
    expect(full.length).toBeGreaterThanOrEqual(1);
    expect(full.length).toBeLessThanOrEqual(4);
    expect(calls.count).toBe(1 + full.length);
    for (const answer of refused) expect(answer.status === 503 && (answer.body as { message: string }).message).toMatch(/overloaded with large reviews: it was not evaluated by its deadline, and this one \(1\.\d MiB\)/);
    const text = metrics();
    expect(text).toContain(`amender_reviews_stopped_total{answer="overloaded"} ${refused.length}`);
    expect(text).toContain(`amender_reviews_stopped_total{answer="failure_policy"} ${1 + full.length}`);
    expect((await held).status).toBe(200);
  });

  it('makes no answer for a review whose client left while the main thread answered others', { timeout: 60_000 }, async () => {
    const calls = { count: 0 };
    const leaving = Array.from({ length: 6 }, () => new AbortController());
    // The clients leave as the first stopped review is being answered: their close events come in next.
    const answerStopped = countingAnswer(calls, () => setImmediate(() => leaving.forEach((c) => c.abort())));
    // A budget that never refuses: what is left unparsed here is only what no one would read.
    const reviews = pool({ queueLimit: 64, answerStopped, stoppedBudget: { smallBytes: 64 * 1024, msPerSecond: 1e6, burstMs: 1e6, msPerMiB: 1 } });
    const { gauge, metrics, held } = await heldPool(reviews);
    const large = largeReview(40_000); // 0.5 MiB
    const first = reviews.reviewer(job(large, 300));
    const others = leaving.map((c) => reviews.reviewer(job(large, 300, c.signal)));
    expect(gauge('amender_review_queue_length')).toBe(7);
    holdThread(400);

    expect((await first).status).toBe(200);
    for (const answer of await Promise.all(others)) {
      expect(answer.status).toBe(499);
      expect(answer.status === 499 && (answer.body as { message: string }).message).toMatch(/client went away/);
    }
    // Only the first was parsed; the others, whose clients had gone, never were.
    expect(calls.count).toBe(1);
    const text = metrics();
    expect(text).toContain('amender_reviews_stopped_total{answer="client_gone"} 6');
    expect((await held).status).toBe(200);
  });
});

describe('the budget of stopped answers', () => {
  const timing = { smallBytes: 1000, msPerSecond: 100, burstMs: 300, msPerMiB: 100 };
  it('always admits small bodies, and large ones while their estimate fits in the milliseconds saved up', () => {
    const budget = new StoppedBudget(timing, 0);
    expect(budget.admits(1000, 0)).toBe(true);
    expect(budget.admits(3 * 2 ** 20, 0)).toBe(true);
    expect(budget.admits(3.1 * 2 ** 20, 0)).toBe(false);
    budget.spend(250, 0);
    expect(budget.admits(2 ** 20, 0)).toBe(false);
    expect(budget.admits(500, 0)).toBe(true);
    // 100 ms a second: 1 MiB (100 ms) fits again after 500 ms.
    expect(budget.admits(2 ** 20, 499)).toBe(false);
    expect(budget.admits(2 ** 20, 500)).toBe(true);
    // Never more than the burst saved up, and a slow answer leaves a debt.
    expect(budget.admits(3.1 * 2 ** 20, 60_000)).toBe(false);
    budget.spend(700, 60_000);
    expect(budget.admits(10_000, 60_000)).toBe(false);
    expect(budget.admits(10_000, 64_100)).toBe(true);
  });
});
