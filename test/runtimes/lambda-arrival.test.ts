/**
 * The API server's `?timeout=` runs from when it sent the review, and on Lambda a cold start (and the
 * front door's queueing) passes before the handler is called. Function URLs and HTTP APIs stamp the
 * arrival as `requestContext.timeEpoch`, REST APIs as `requestTimeEpoch`: the time between that stamp and
 * the invocation comes off the review's deadline, so a slow review is still answered by its policies'
 * failurePolicy while the API server reads. A stamp that cannot be a request still waited for (older than
 * the API server's longest timeout, or ahead of this clock) is not taken at its word. No timed assertion:
 * the deadline a denial names is the one the review was given.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLambdaHandler, type LambdaHandler } from '../../src/adapters/lambda-handler.js';
import { readServerlessConfig } from '../../src/adapters/serverless-config.js';
import { createServerlessRuntime } from '../../src/adapters/serverless-runtime.js';
import { bundledSource, bundlePolicies } from '../../src/sources/index.js';
import { ROOT } from '../node/built.js';
import { deadlineOf, HEAVY_POLICY, type DeadlineReply } from './heavy-policy.js';
import type { HttpCase } from './helpers.js';
import { functionUrlEvent, restApiEvent } from './lambda.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
/** The API server's timeout: `amender webhook-config` leaves a review 80 % of it, 2,400 ms. */
const TIMEOUT = '3s';
/** How long before the invocation the stamped requests arrived. */
const BEFORE_MS = 1500;

const reviewCase: HttpCase = { name: 'review', method: 'POST', path: `/mutate?timeout=${TIMEOUT}`, body: REVIEW, headers: { 'content-type': 'application/json' } };

/** A Function URL event stamped `ago` ms before now (`requestContext.timeEpoch`). */
function functionUrlArrived(ago: number): Record<string, unknown> {
  const event = functionUrlEvent(reviewCase, false);
  (event.requestContext as Record<string, unknown>).timeEpoch = Date.now() - ago;
  return event;
}

async function deadlineFor(handler: LambdaHandler, event: unknown): Promise<number> {
  const result = await handler(event);
  expect(result.statusCode).toBe(200);
  const reply = JSON.parse(result.body ?? '') as DeadlineReply;
  expect(reply.response.allowed).toBe(false);
  return deadlineOf(reply);
}

describe('a Lambda review stamped before its invocation', () => {
  let handler: LambdaHandler;
  beforeAll(async () => {
    const made = await bundlePolicies([{ name: 'heavy.yaml', text: HEAVY_POLICY }]);
    if (!made.ok) throw new Error('the test policy does not bundle');
    const bundle = made.bundle;
    const runtime = createServerlessRuntime({
      config: readServerlessConfig({ AMENDER_REVIEW_DEADLINE_MS: '8000' }),
      resolvers: { bundled: () => bundledSource(bundle) },
      platform: 'AWS Lambda',
      logger: () => {},
    });
    await runtime.ensureLoaded();
    handler = createLambdaHandler(runtime, { refreshWaitMs: 0 });
  });

  it('has the time before its invocation taken off its deadline (Function URL timeEpoch)', async () => {
    const deadline = await deadlineFor(handler, functionUrlArrived(BEFORE_MS));
    expect(deadline).toBeGreaterThan(0);
    expect(deadline).toBeLessThanOrEqual(2400 - BEFORE_MS);
  }, 30_000);

  it('has it taken off on a REST API too (requestTimeEpoch)', async () => {
    const event = restApiEvent(reviewCase, false);
    (event.requestContext as Record<string, unknown>).requestTimeEpoch = Date.now() - BEFORE_MS;
    const deadline = await deadlineFor(handler, event);
    expect(deadline).toBeGreaterThan(0);
    expect(deadline).toBeLessThanOrEqual(2400 - BEFORE_MS);
  }, 30_000);

  // A replayed or sample event (stamped days ago), or a stamp from a clock ahead of this one: the review
  // keeps the API server's whole share, not a deadline already passed.
  it.each([
    ['a stamp older than any API server timeout', 3 * 24 * 3600 * 1000],
    ['a stamp ahead of this clock', -60_000],
  ])('ignores %s', async (_name, ago) => {
    const deadline = await deadlineFor(handler, functionUrlArrived(ago));
    expect(deadline).toBeGreaterThan(2400 - BEFORE_MS);
    expect(deadline).toBeLessThanOrEqual(2400);
  }, 30_000);
});
