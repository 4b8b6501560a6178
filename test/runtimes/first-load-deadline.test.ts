/**
 * The API server's `?timeout=` runs from the request's arrival. On Lambda and Workers a request may first
 * wait for its policy set's first load (a slow store, up to seconds): that wait comes off the review's
 * deadline, so a slow review is still answered by its policies' failurePolicy before the API server gives
 * up. No timed assertion: the deadline a denial names is the one the review was given, and the store's
 * listing is held back at least WAIT_MS before the set loads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLambdaHandler } from '../../src/adapters/lambda-handler.js';
import { readServerlessConfig } from '../../src/adapters/serverless-config.js';
import { createServerlessRuntime } from '../../src/adapters/serverless-runtime.js';
import { serveWorker } from '../../src/adapters/workers-handler.js';
import { bundledSource, bundlePolicies, type PolicyBundle, type PolicySource } from '../../src/sources/index.js';
import { ROOT } from '../node/built.js';
import { deadlineOf, HEAVY_POLICY, type DeadlineReply } from './heavy-policy.js';
import { functionUrlEvent } from './lambda.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
/** How long the store holds back its listing at the first load. */
const WAIT_MS = 1500;
/** The API server's timeout: `amender webhook-config` leaves a review 80 % of it, 2,400 ms. */
const TIMEOUT = '3s';

/** The bundled set, from a store whose first listing answers only after WAIT_MS. */
function slowStore(bundle: PolicyBundle): PolicySource {
  const source = bundledSource(bundle);
  let first = true;
  return {
    ...source,
    async list(options) {
      if (first) await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
      first = false;
      return source.list(options);
    },
  };
}

function runtime(bundle: PolicyBundle, platform: string) {
  return createServerlessRuntime({
    config: readServerlessConfig({ AMENDER_REVIEW_DEADLINE_MS: '8000' }),
    resolvers: { bundled: () => slowStore(bundle) },
    platform,
    logger: () => {},
  });
}

function expectDeadlineAfterWait(reply: DeadlineReply): void {
  expect(reply.response.allowed).toBe(false);
  const deadline = deadlineOf(reply);
  expect(deadline).toBeGreaterThan(0);
  // 2,400 ms from arrival, of which the first load took at least WAIT_MS.
  expect(deadline).toBeLessThanOrEqual(2400 - WAIT_MS);
}

/** A timeout whose review share (500 ms by the webhook-config rule) ends before the store answers. */
const SHORT_TIMEOUT = '1s';
type Refusal = { kind: string; code: number; message: string };

/** Answered 503 "not loaded", which the API server treats as the webhook's failure (its failurePolicy). */
function expectNotLoaded(status: number, reply: Refusal): void {
  expect(status).toBe(503);
  expect(reply).toMatchObject({ kind: 'Status', code: 503, message: 'no policy set is loaded yet' });
}

describe('a review that waited for its set’s first load', () => {
  let bundle: PolicyBundle;
  beforeAll(async () => {
    const made = await bundlePolicies([{ name: 'heavy.yaml', text: HEAVY_POLICY }]);
    if (!made.ok) throw new Error('the test policy does not bundle');
    bundle = made.bundle;
  });

  it('has that wait taken off its deadline on Lambda', async () => {
    const handler = createLambdaHandler(runtime(bundle, 'AWS Lambda'), { refreshWaitMs: 0 });
    const event = functionUrlEvent({ name: 'review', method: 'POST', path: `/mutate?timeout=${TIMEOUT}`, body: REVIEW, headers: { 'content-type': 'application/json' } }, false);
    const result = await handler(event);
    expect(result.statusCode).toBe(200);
    expectDeadlineAfterWait(JSON.parse(result.body ?? '') as DeadlineReply);
  }, 30_000);

  it('has that wait taken off its deadline on Workers', async () => {
    const worker = serveWorker(() => ({ runtime: runtime(bundle, 'Cloudflare Workers') }));
    const waited: Promise<unknown>[] = [];
    const request = new Request(`https://amender.example/mutate?timeout=${TIMEOUT}`, { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } });
    const response = await worker.fetch(request, {}, { waitUntil: (p) => waited.push(p) });
    await Promise.all(waited);
    expect(response.status).toBe(200);
    expectDeadlineAfterWait((await response.json()) as DeadlineReply);
  }, 30_000);

  // The API server stops reading at its timeout: a load that outlasts the review's share of it is not
  // waited for (the review is answered "not loaded" in time), and goes on for the next request.
  it('waits no longer than the API server’s timeout allows on Lambda', async () => {
    const rt = runtime(bundle, 'AWS Lambda');
    const handler = createLambdaHandler(rt, { refreshWaitMs: 0 });
    const event = functionUrlEvent({ name: 'review', method: 'POST', path: `/mutate?timeout=${SHORT_TIMEOUT}`, body: REVIEW, headers: { 'content-type': 'application/json' } }, false);
    const result = await handler(event);
    expectNotLoaded(result.statusCode, JSON.parse(result.body ?? '') as Refusal);
    await rt.refreshers()[0].current();
    expect(rt.refreshers()[0].provider().set).toBeDefined();
  }, 30_000);

  it('waits no longer than the API server’s timeout allows on Workers', async () => {
    const rt = runtime(bundle, 'Cloudflare Workers');
    const worker = serveWorker(() => ({ runtime: rt }));
    const waited: Promise<unknown>[] = [];
    const request = new Request(`https://amender.example/mutate?timeout=${SHORT_TIMEOUT}`, { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } });
    const response = await worker.fetch(request, {}, { waitUntil: (p) => waited.push(p) });
    expectNotLoaded(response.status, (await response.json()) as Refusal);
    await Promise.all(waited);
    expect(rt.refreshers()[0].provider().set).toBeDefined();
  }, 30_000);
});
