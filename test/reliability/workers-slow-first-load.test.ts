/**
 * A Worker isolate's first load from a slow store: the first review waits for it FIRST_LOAD_WAIT_MS (5 s)
 * and is answered 503, while the load goes on. workerd cancels whatever a request left running once its
 * answer is sent, unless handed to `ctx.waitUntil`: a load cut so never ended, the refresher kept waiting
 * for it, and every later request of the isolate was answered 503 ("no policy set is loaded yet", no
 * source error, nothing logged) for as long as the isolate lived. Here the store (an R2 binding served by
 * another Worker) answers its listing 6 s after it is asked: the set must load, and later reviews be served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../runtimes/helpers.js';
import { startWorker, type RunningWorker } from '../runtimes/workers.js';
import { REVIEW } from './hostile-inputs.js';

/** An R2 bucket binding whose listing answers (an empty prefix) 6 s after it is asked: past the first-load wait. */
const SLOW_BUCKET = `import { WorkerEntrypoint } from 'cloudflare:workers';
export class SlowBucket extends WorkerEntrypoint {
  async list() { await new Promise((resolve) => setTimeout(resolve, 6000)); return { objects: [], truncated: false }; }
  async get() { return null; }
}
export default { fetch() { return new Response('not a route'); } };
`;

describe('a Worker whose first load outlasts the first request', () => {
  let worker: RunningWorker;
  beforeAll(async () => {
    ensureBuilt();
    worker = await startWorker({ AMENDER_POLICY_SOURCES: 'r2://SLOW/policies', AMENDER_REFRESH_SECONDS: '3600' }, {}, [{ binding: 'SLOW', entrypoint: 'SlowBucket', script: SLOW_BUCKET }]);
  });
  afterAll(async () => {
    await worker?.dispose();
  });

  const review = async () => {
    const res = await fetch(`${worker.origin}/mutate`, { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(15_000) });
    return { status: res.status, text: await res.text() };
  };

  it('loads the set after the first review was answered 503, and serves the reviews after', async () => {
    const first = await review();
    expect(first.status).toBe(503);
    expect(first.text).toContain('no policy set is loaded yet');
    // The listing answers 6 s after the first review's arrival; look for 20 s at most.
    let last = first;
    for (let i = 0; i < 40 && last.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      last = await review();
    }
    expect(last.status).toBe(200);
    expect(JSON.parse(last.text).response).toMatchObject({ allowed: true });
    expect(worker.logs.filter((l) => l.msg === 'policy set applied')).toHaveLength(1);
    const ready = await fetch(`${worker.origin}/readyz`);
    expect(ready.status).toBe(200);
  }, 45_000);
});
