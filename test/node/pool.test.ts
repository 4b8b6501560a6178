/**
 * The review pool (src/adapters/pool) behind the app, from source: the same replies as in-process, a set
 * without documents to rebuild from stays in-process, the answer of a stopped review is injectable, the
 * queue is bounded, a review whose client left while it waited is dropped, and the workers start one
 * after the other.
 */
import { describe, expect, it } from 'vitest';
import type { AnswerStopped } from '../../src/adapters/pool/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet, inProcessReviewer, resolveLimits } from '../../src/server/index.js';
import { waitFor } from './bundle.js';
import { metric, post, REVIEW, testPools, UPDATE_REVIEW } from './pool-harness.js';
import { labelPolicy, refresherState, SLOW_CONDITION } from '../reliability/helpers/label-policy.js';

const pool = testPools();

describe('the review pool', () => {
  it('gives the reply the in-process evaluation gives', async () => {
    const state = refresherState(labelPolicy('labelled', 'labelled', 1));
    const inProcess = createApp({ policies: () => state });
    const pooled = createApp({ policies: () => state, reviewer: pool().reviewer });
    const [a, b] = await Promise.all([post(inProcess), post(pooled)]);
    expect(b.status).toBe(200);
    expect(await b.json()).toEqual(await a.json());
  });

  it('answers the reviewer with what the in-process reviewer answers: reply, outcomes, subject', async () => {
    const state = refresherState(labelPolicy('labelled', 'labelled', 2));
    const job = { body: new TextEncoder().encode(REVIEW), setName: 'default', state, limits: resolveLimits(), signal: new AbortController().signal };
    const [inProcess, pooled] = await Promise.all([inProcessReviewer(job), pool().reviewer(job)]);
    expect(pooled.status).toBe(200);
    // The reply crosses as text and is parsed when read; the outcomes lose only what the main thread never reads.
    expect(pooled.body).toEqual(inProcess.body);
    expect(pooled.body).toBe(pooled.body);
    const { outcomes, body: _body, ...rest } = inProcess as Extract<typeof inProcess, { status: 200 }>;
    expect(pooled).toMatchObject(rest);
    const crossed = (pooled as Extract<typeof pooled, { status: 200 }>).outcomes;
    const timeless = (list: typeof outcomes) => list?.map(({ detail: _d, param: _p, policyKind: _k, durationMs, ...kept }) => (expect(typeof durationMs).toBe('number'), kept));
    expect(timeless(crossed)).toEqual(timeless(outcomes));
    expect(crossed).toHaveLength(2);
  });

  it('evaluates in-process a set it cannot rebuild (no documents given)', async () => {
    const set = buildPolicySet([parseDocuments('t.yaml', labelPolicy('fixed', 'fixed', 1))]);
    const app = createApp({ policies: fixedPolicySet(set, 'fixed'), reviewer: pool({ workers: 1 }).reviewer });
    const reply = (await (await post(app)).json()) as { response: { patch: string } };
    expect(Buffer.from(reply.response.patch, 'base64').toString()).toContain('/metadata/labels/fixed');
  });

  it('answers a slow review by the engine deadline in the worker, which lives on', { timeout: 60_000 }, async () => {
    const calls: [number, string][] = [];
    const answerStopped: AnswerStopped = (set, _request, ordinal, reason) => {
      calls.push([ordinal, reason]);
      return { allowed: false, status: { code: 403, message: `stopped (${reason}) at ${set.mutatingPolicies[ordinal].policy.name}` }, outcomes: [], warnings: [], auditAnnotations: {} };
    };
    // A second of grace: the engine's own deadline (200 ms) must come first even when the machine is so
    // loaded that the worker, which runs below the main thread's priority, waits for a CPU.
    const reviews = pool({ answerStopped, graceMs: 1000 });
    // Seconds of work even on a fast machine (16 million comprehension steps), against a 200 ms deadline.
    const state = refresherState(labelPolicy('slow', 'slow', 100, SLOW_CONDITION, 16));
    // First a review the policy does not match (an UPDATE): the worker then holds the set, and the slow
    // one starts at once.
    const patient = createApp({ policies: () => state, reviewer: reviews.reviewer, limits: { reviewDeadlineMs: 60_000 } });
    const unmatched = (await (await post(patient, undefined, UPDATE_REVIEW)).json()) as { response: { allowed: boolean; patch?: string } };
    expect(unmatched.response).toMatchObject({ allowed: true });
    expect(unmatched.response.patch).toBeUndefined();
    const app = createApp({ policies: () => state, reviewer: reviews.reviewer, limits: { reviewDeadlineMs: 200 } });
    reviews.registerMetrics(app.metrics.registry);
    const reply = (await (await post(app)).json()) as { response: { allowed: boolean; status: { message: string } } };
    expect(reply.response.allowed).toBe(false);
    // The engine in the worker notices its own deadline first: the review is answered by the policy's
    // failurePolicy and the worker lives (the injected answer is for a worker that had to be stopped).
    expect(reply.response.status.message).toContain("policy 'slow'");
    expect(reply.response.status.message).toContain('deadline exceeded');
    expect(calls).toEqual([]);
    expect(app.metrics.registry.render()).not.toContain('amender_workers_replaced_total{reason="deadline"} 1');
  });

  it('bounds its queue, and drops a waiting review whose client left', async () => {
    const reviews = pool({ queueLimit: 1 });
    const state = refresherState(labelPolicy('slow', 'slow', 200, SLOW_CONDITION));
    const app = createApp({ policies: () => state, reviewer: reviews.reviewer, limits: { reviewDeadlineMs: 60_000 } });
    reviews.registerMetrics(app.metrics.registry);
    const gauge = (name: string) => metric(app, name);
    const busy = post(app);
    await waitFor('the first review in the worker', () => gauge('amender_workers_busy') === 1);
    const leaving = new AbortController();
    const waiting = post(app, leaving.signal);
    await waitFor('the second review queued', () => gauge('amender_review_queue_length') === 1);
    const refused = await post(app);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { message: string }).message).toMatch(/review workers are busy/);
    leaving.abort();
    expect(gauge('amender_review_queue_length')).toBe(0);
    // Nobody reads it: counted abandoned (499 in logs), not unavailable.
    expect((await waiting).status).toBe(499);
    expect((await busy).status).toBe(200);
    expect(gauge('amender_workers_busy')).toBe(0);
  }, 60_000);

  it('answers a review that waited past its deadline by failure policy, unrun, and keeps the others waiting', { timeout: 60_000 }, async () => {
    const reviews = pool({ queueLimit: 8 });
    // Seconds of review (15 million comprehension steps): the worker stays busy while the others wait.
    const state = refresherState(labelPolicy('slow', 'slow', 1500, SLOW_CONDITION));
    const patient = createApp({ policies: () => state, reviewer: reviews.reviewer, limits: { reviewDeadlineMs: 60_000 } });
    const hasty = createApp({ policies: () => state, reviewer: reviews.reviewer, limits: { reviewDeadlineMs: 300 } });
    reviews.registerMetrics(patient.metrics.registry);
    const gauge = (name: string) => metric(patient, name);
    const busy = post(patient);
    await waitFor('the first review in the worker', () => gauge('amender_workers_busy') === 1);
    const before = post(patient);
    const expiring = post(hasty);
    const after = post(patient);
    await waitFor('three reviews queued', () => gauge('amender_review_queue_length') === 3);
    const reply = (await (await expiring).json()) as { response: { allowed: boolean; status: { message: string } } };
    // Answered while the worker is still on the first review: it never ran, its policy's failurePolicy
    // (Fail) decided; the reviews before and after it in the queue still wait.
    expect(gauge('amender_workers_busy')).toBe(1);
    expect(gauge('amender_review_queue_length')).toBe(2);
    expect(reply.response.allowed).toBe(false);
    expect(reply.response.status.message).toMatch(/deadline/);
    for (const waited of [busy, before, after]) expect((await waited).status).toBe(200);
    expect(gauge('amender_review_queue_length')).toBe(0);
  });

  it('starts one worker at once, and the others after its first reply', { timeout: 60_000 }, async () => {
    const reviews = pool({ workers: 3 });
    const state = refresherState(labelPolicy('labelled', 'labelled', 1));
    const app = createApp({ policies: () => state, reviewer: reviews.reviewer });
    reviews.registerMetrics(app.metrics.registry);
    const gauge = (name: string) => metric(app, name);
    expect(gauge('amender_workers')).toBe(1);
    expect((await post(app)).status).toBe(200);
    // The reply is passed on before the others start (constructing a Worker holds the thread).
    expect(gauge('amender_workers')).toBe(1);
    await waitFor('the other workers started', () => gauge('amender_workers') === 3);
  });

  it('starts the others at once when a review would wait for the first', { timeout: 60_000 }, async () => {
    // No timed start of the second worker during the test (on a loaded machine 2 s pass quickly): only the
    // review that would wait starts it.
    const reviews = pool({ workers: 2, staggerMs: 600_000 });
    // Several seconds of review: the second worker has ample time to start and answer the light one.
    const slow = refresherState(labelPolicy('slow', 'slow', 1500, SLOW_CONDITION));
    // Both apps answer /mutate (set name `default`): the light set is that set's next version.
    const light = refresherState(labelPolicy('light', 'light', 1), 2);
    const slowApp = createApp({ policies: () => slow, reviewer: reviews.reviewer, limits: { reviewDeadlineMs: 60_000 } });
    const lightApp = createApp({ policies: () => light, reviewer: reviews.reviewer });
    reviews.registerMetrics(slowApp.metrics.registry);
    const gauge = (name: string) => metric(slowApp, name);
    const order: string[] = [];
    const busy = post(slowApp).then((r) => (order.push('slow'), r));
    await waitFor('the slow review in the first worker', () => gauge('amender_workers_busy') === 1);
    expect(gauge('amender_workers')).toBe(1);
    const quick = await post(lightApp);
    order.push('light');
    expect(quick.status).toBe(200);
    expect(gauge('amender_workers')).toBe(2);
    expect((await busy).status).toBe(200);
    expect(order).toEqual(['light', 'slow']);
  });
});
