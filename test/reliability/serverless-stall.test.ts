/**
 * A store that hangs (accepts connections and never answers: an S3 endpoint behind a route that drops
 * packets) costs only the reviews of the set it serves, on the serverless platforms: the built Lambda
 * handler answers /healthz and the reviews of a cluster whose set is bundled at once, and the hung
 * cluster's reviews 503 within FIRST_LOAD_WAIT_MS (5 s), well before the API server's webhook timeout.
 * Before, every request on every route waited for every set never loaded, up to the load's own 30 s
 * bound, so every cluster's webhook fell to its failurePolicy. The start waits for the hung set 5 s at
 * most too (Lambda allows 10 s of init). The same on Workers, in workerd: there the hung store is an R2
 * binding whose calls never end (a service Worker that waits out the test on a timer, so that workerd sees
 * work pending and does not end the call as hung).
 */
import { createHash } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../runtimes/helpers.js';
import { functionUrlEvent, startLambda, type LambdaProcess } from '../runtimes/lambda.js';
import { startWorker, type RunningWorker } from '../runtimes/workers.js';
import { REVIEW } from './hostile-inputs.js';

const SECRET = 'S3cr3tPathValue0123456789abcdef';
const HASH = `sha256:${createHash('sha256').update(SECRET).digest('hex')}`;
const JSON_TYPE = { 'content-type': 'application/json' };

describe('a store that hangs, on Lambda', () => {
  const sockets = new Set<Socket>();
  const hole = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  let lambda: LambdaProcess;

  beforeAll(async () => {
    ensureBuilt();
    await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
    const port = (hole.address() as { port: number }).port;
    lambda = await startLambda({
      AMENDER_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AMENDER_CLUSTERS: 'alpha,beta',
      AMENDER_CLUSTER_ALPHA_SOURCES: 'bundled',
      AMENDER_CLUSTER_ALPHA_SECRET_HASHES: HASH,
      AMENDER_CLUSTER_BETA_SOURCES: 's3://bucket/policies',
      AMENDER_CLUSTER_BETA_SECRET_HASHES: HASH,
    });
  }, 30_000);
  afterAll(async () => {
    await lambda?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hole.close(resolve));
  });

  const event = (method: 'GET' | 'POST', path: string, body?: string) => functionUrlEvent({ name: path, method, path, ...(body ? { body, headers: JSON_TYPE } : {}) }, false);

  it('answers /healthz and the bundled cluster at once while the other cluster\'s store hangs', async () => {
    // Each invocation is given 3 s: the hung load runs for 30 s.
    expect((await lambda.invoke(event('GET', '/healthz'), 3000)).statusCode).toBe(200);
    const alpha = await lambda.invoke(event('POST', `/clusters/alpha/${SECRET}/mutate`, REVIEW), 3000);
    expect(alpha.statusCode).toBe(200);
    expect(JSON.parse(alpha.body ?? '{}').response).toMatchObject({ allowed: true });
    expect((await lambda.invoke(event('POST', '/mutate', REVIEW), 3000)).statusCode).toBe(200);
  });

  it('answers 400 to a Host that makes no URL without quoting the path and its secret', async () => {
    for (const host of ['example.com:99999', '[::1', 'a|b']) {
      const e = event('POST', `/clusters/alpha/${SECRET}/mutate`, REVIEW) as { headers: Record<string, string> };
      e.headers.host = host;
      const reply = await lambda.invoke(e, 3000);
      expect(reply.statusCode, host).toBe(400);
      expect(reply.body, host).not.toContain(SECRET);
    }
  });

  it("answers the hung cluster's reviews 503 within the first-load wait, not at the load's 30 s", async () => {
    const beta = await lambda.invoke(event('POST', `/clusters/beta/${SECRET}/mutate`, REVIEW), 8000);
    expect(beta.statusCode).toBe(503);
    expect(beta.body).not.toContain(SECRET);
  });
});

describe('a first load started by a review on Lambda, with less time left than the first-load wait', () => {
  const sockets = new Set<Socket>();
  const hole = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  let lambda: LambdaProcess;
  let port: number;

  beforeAll(async () => {
    ensureBuilt();
    // A port nothing listens on yet: the load at init is refused at once (and the set not loaded).
    await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
    port = (hole.address() as { port: number }).port;
    await new Promise((resolve) => hole.close(resolve));
    lambda = await startLambda({
      AMENDER_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AMENDER_POLICY_SOURCES: 's3://bucket/policies',
    });
  }, 30_000);
  afterAll(async () => {
    await lambda?.stop();
    for (const socket of sockets) socket.destroy();
    if (hole.listening) await new Promise((resolve) => hole.close(resolve));
  });

  it('answers 503 before the function times out, rather than waiting the whole 5 s into a timeout (which would reset the environment)', async () => {
    // Now the store accepts and never answers; past the retry pause, a review starts the load again.
    await new Promise<void>((resolve) => hole.listen(port, '127.0.0.1', resolve));
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    const started = performance.now();
    const reply = await lambda.invoke(functionUrlEvent({ name: 'review', method: 'POST', path: '/mutate', body: REVIEW, headers: JSON_TYPE }, false), 2_000);
    const took = performance.now() - started;
    expect(reply.statusCode).toBe(503);
    expect(took).toBeLessThan(2_000);
  }, 20_000);
});

/** An R2 bucket binding whose calls never answer within a test: the store behind it hangs. */
const HUNG_BUCKET = `import { WorkerEntrypoint } from 'cloudflare:workers';
const hang = () => new Promise((resolve) => setTimeout(resolve, 600000));
export class HungBucket extends WorkerEntrypoint {
  async list() { await hang(); return { objects: [], truncated: false }; }
  async get() { await hang(); return null; }
  async head() { await hang(); return null; }
}
export default { fetch() { return new Response('not a route'); } };
`;

describe('a store that hangs, on Workers (workerd)', () => {
  let worker: RunningWorker;
  beforeAll(async () => {
    ensureBuilt();
    worker = await startWorker(
      {
        AMENDER_CLUSTERS: 'alpha,beta',
        AMENDER_CLUSTER_ALPHA_SOURCES: 'bundled',
        AMENDER_CLUSTER_ALPHA_SECRET_HASHES: HASH,
        AMENDER_CLUSTER_BETA_SOURCES: 'r2://HUNG/policies',
        AMENDER_CLUSTER_BETA_SECRET_HASHES: HASH,
      },
      {},
      [{ binding: 'HUNG', entrypoint: 'HungBucket', script: HUNG_BUCKET }],
    );
  });
  afterAll(async () => {
    await worker?.dispose();
  });

  /** The reply and how long it took, or 'none' when none came within `ms`. */
  const ask = async (method: 'GET' | 'POST', path: string, ms: number) => {
    const started = performance.now();
    try {
      const res = await fetch(`${worker.origin}${path}`, { method, ...(method === 'POST' ? { body: REVIEW, headers: JSON_TYPE } : {}), signal: AbortSignal.timeout(ms) });
      return { status: res.status, text: await res.text(), ms: performance.now() - started };
    } catch {
      return { status: 'none' as const, text: '', ms: performance.now() - started };
    }
  };

  it("answers /healthz and the bundled cluster at once while the other cluster's store hangs", async () => {
    expect((await ask('GET', '/healthz', 3000)).status).toBe(200);
    const alpha = await ask('POST', `/clusters/alpha/${SECRET}/mutate`, 3000);
    expect(alpha.status).toBe(200);
    expect(JSON.parse(alpha.text).response).toMatchObject({ allowed: true });
    expect((await ask('POST', '/mutate', 3000)).status).toBe(200);
  });

  it("answers the hung cluster's reviews 503 within the first-load wait, and the others meanwhile", async () => {
    const beta = ask('POST', `/clusters/beta/${SECRET}/mutate`, 8000);
    // While the hung cluster's review waits, the bundled cluster is answered at once.
    expect((await ask('POST', `/clusters/alpha/${SECRET}/mutate`, 3000)).status).toBe(200);
    const reply = await beta;
    expect(reply.status).toBe(503);
    expect(reply.text).not.toContain(SECRET);
    expect(reply.text).toContain('no policy set is loaded yet');
    // The load still hangs, its wait spent: the next review of that cluster is answered 503 without waiting again.
    const again = await ask('POST', `/clusters/beta/${SECRET}/mutate`, 3000);
    expect(again.status).toBe(503);
    expect(worker.logs.some((l) => JSON.stringify(l).includes(SECRET))).toBe(false);
  }, 30_000);
});
