/**
 * Issue 12 item 5, one error boundary: an unexpected failure of the engine (a bug: not bad input, not a
 * policy's own error, not the deadline) is answered HTTP 500 with a Status, logged with its stack and
 * counted as outcome `error`, so the webhook's own failurePolicy in the cluster decides (kube-apiserver
 * treats a 500 as a failed call: Ignore admits, Fail rejects; an `allowed: false` reply would reject under
 * either). The fault is injected through the engine's input, the compiled policy set
 * (fixtures/failing-engine.ts), and the answer is the same on every platform path: the app in-process,
 * the Node server's worker pool, the Lambda handler and the Worker's fetch handler.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLambdaHandler } from '../../src/adapters/lambda-handler.js';
import { bundledWorkerEntry } from '../../src/adapters/pool/entry.js';
import { ReviewPool } from '../../src/adapters/pool/index.js';
import { readServerlessConfig } from '../../src/adapters/serverless-config.js';
import { createServerlessRuntime } from '../../src/adapters/serverless-runtime.js';
import { serveWorker } from '../../src/adapters/workers-handler.js';
import type { AdmissionRequest } from '../../src/admission/index.js';
import { evaluate } from '../../src/engine/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet, type LogRecord, type PolicySetState } from '../../src/server/index.js';
import { bundledSource, bundlePolicies, type PolicyBundle } from '../../src/sources/index.js';
import { buildWithFailingObjectStore, INJECTED_FAULT, withFailingObjectStore } from '../fixtures/failing-engine.js';
import { ROOT } from '../node/built.js';
import { functionUrlEvent } from '../runtimes/lambda.js';
import { labelPolicy } from './helpers/label-policy.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
const UID = (JSON.parse(REVIEW) as { request: { uid: string } }).request.uid;
const POLICY = labelPolicy('labelled', 'labelled', 1);
/** The reply of every platform: a Status, 500, naming the request and nothing of the error. */
const EXPECTED = { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500, message: `internal error while evaluating request ${UID}` };

function parsed() {
  return parseDocuments('labelled.yaml', POLICY);
}

function post(app: ReturnType<typeof createApp>): Promise<Response> {
  return Promise.resolve(app.app.fetch(new Request('http://x/mutate', { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } })));
}

/** The access log line of the review, which must carry the error's stack. */
function reviewLine(logs: readonly LogRecord[]): LogRecord {
  const line = logs.find((r) => r.msg === 'request' && r.path === '/mutate');
  expect(line).toBeDefined();
  return line!;
}

function expectLoggedWithStack(line: LogRecord): void {
  expect(line).toMatchObject({ level: 'error', status: 500, outcome: 'error', uid: UID });
  expect(String(line.error)).toContain(`TypeError: ${INJECTED_FAULT}`);
  expect(String(line.error)).toMatch(/\n\s+at /);
}

describe('an unexpected engine failure', () => {
  it('rejects evaluate (the engine answers nothing it cannot stand behind)', async () => {
    const set = withFailingObjectStore(buildPolicySet([parsed()]));
    const request = (JSON.parse(REVIEW) as { request: AdmissionRequest }).request;
    await expect(evaluate(set, request)).rejects.toThrow(INJECTED_FAULT);
    // The same set without the fault answers: the failure is the injected one.
    await expect(evaluate(buildPolicySet([parsed()]), request)).resolves.toMatchObject({ allowed: true });
  });

  it('is HTTP 500 in-process, logged with its stack and counted as outcome error', async () => {
    const logs: LogRecord[] = [];
    const app = createApp({ policies: fixedPolicySet(withFailingObjectStore(buildPolicySet([parsed()])), 'faulty'), logger: (r) => logs.push(r) });
    const response = await post(app);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual(EXPECTED);
    expectLoggedWithStack(reviewLine(logs));
    expect(app.metrics.registry.render()).toMatch(/^amender_reviews_total\{outcome="error"\} 1$/m);
  });
});

describe('an unexpected engine failure in a review worker', () => {
  let pool: ReviewPool;
  beforeAll(async () => {
    // Node 20 carries no TypeScript loader into worker threads: the fixture worker is bundled, as for the real one.
    const entry = await bundledWorkerEntry(new URL('../fixtures/failing-review-worker.ts', import.meta.url));
    pool = new ReviewPool({ workers: 1, heapMb: 256, graceMs: 1000, queueLimit: 4, entry });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it('is the same HTTP 500, logged with the stack from the worker, and the worker lives on', async () => {
    // The main thread holds the set as built; the worker builds its own from the documents, with the fault.
    const state: PolicySetState = { set: buildPolicySet([parsed()]), inputs: [parsed()], generation: 1, source: 'test', sourceErrors: [] };
    const logs: LogRecord[] = [];
    const app = createApp({ policies: () => state, reviewer: pool.reviewer, logger: (r) => logs.push(r) });
    pool.registerMetrics(app.metrics.registry);
    for (let i = 0; i < 2; i++) {
      const response = await post(app);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual(EXPECTED);
    }
    expectLoggedWithStack(reviewLine(logs));
    // An answered failure is not a crash: no worker was replaced.
    expect(app.metrics.registry.render()).not.toMatch(/^amender_workers_replaced_total\{/m);
  });
});

describe('an unexpected engine failure on the serverless platforms', () => {
  let bundle: PolicyBundle;
  beforeAll(async () => {
    const made = await bundlePolicies([{ name: 'labelled.yaml', text: POLICY }]);
    if (!made.ok) throw new Error('the test policy does not bundle');
    bundle = made.bundle;
  });

  function runtime(platform: string, logs: LogRecord[]) {
    return createServerlessRuntime({
      config: readServerlessConfig({}),
      resolvers: { bundled: () => bundledSource(bundle) },
      platform,
      logger: (r) => logs.push(r),
      build: buildWithFailingObjectStore,
    });
  }

  it('is HTTP 500 from the Lambda handler', async () => {
    const logs: LogRecord[] = [];
    const handler = createLambdaHandler(runtime('AWS Lambda', logs), { refreshWaitMs: 0 });
    const result = await handler(functionUrlEvent({ name: 'review', method: 'POST', path: '/mutate', body: REVIEW, headers: { 'content-type': 'application/json' } }, false));
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body ?? '')).toEqual(EXPECTED);
    expectLoggedWithStack(reviewLine(logs));
  });

  it("is HTTP 500 from the Worker's fetch handler", async () => {
    const logs: LogRecord[] = [];
    const worker = serveWorker(() => ({ runtime: runtime('Cloudflare Workers', logs) }));
    const waited: Promise<unknown>[] = [];
    const response = await worker.fetch(new Request('https://amender.example/mutate', { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } }), {}, { waitUntil: (p) => waited.push(p) });
    await Promise.all(waited);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual(EXPECTED);
    expectLoggedWithStack(reviewLine(logs));
  });
});
