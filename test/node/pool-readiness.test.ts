/**
 * /readyz says whether reviews can be evaluated, not only whether a policy set is loaded: while the review
 * workers started since the last answer have all died before giving one (a broken bundle, a set no
 * worker's heap can build), it answers 503 and says why, so a release whose workers cannot start is never
 * routed to and its rollout stops while the old pods serve. A worker that comes up and builds what it was
 * sent makes the process ready again, though an unready process gets no review to prove it with.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundledWorkerEntry } from '../../src/adapters/pool/entry.js';
import { ReviewPool, workerEntryBeside, type PoolOptions } from '../../src/adapters/pool/index.js';
import { createApp } from '../../src/server/index.js';
import { labelPolicy, refresherState } from '../reliability/helpers/label-policy.js';
import { post } from './pool-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'amender-pool-readiness-'));
const pools: ReviewPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

const state = refresherState(labelPolicy('add-label', 'team', 1));

function served(entry: PoolOptions['entry']) {
  const pool = new ReviewPool({ workers: 1, heapMb: 64, graceMs: 200, queueLimit: 8, entry });
  pools.push(pool);
  const amender = createApp({ policies: () => state, reviewer: pool.reviewer, unavailable: () => pool.unavailable() });
  const readyz = async () => {
    const res = await amender.app.fetch(new Request('http://x/readyz'));
    return { status: res.status, body: (await res.json()) as { ready: boolean; message?: string } };
  };
  return { pool, amender, readyz };
}

async function until<T>(what: string, probe: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('readiness of the Node server with its review workers', () => {
  it(
    'is 503, saying why, while every worker dies as it loads (a broken bundle)',
    async () => {
      const broken = join(dir, 'broken.cjs');
      writeFileSync(broken, "throw new Error('this worker bundle is broken');\n");
      const { readyz } = served({ url: pathToFileURL(broken) });
      const unready = await until('readyz 503', readyz, (r) => r.status === 503);
      expect(unready.body.ready).toBe(false);
      expect(unready.body.message).toMatch(/^the review workers cannot start: \d+ in a row stopped before answering a review \(the last said: .*this worker bundle is broken\)$/);
    },
    30_000,
  );

  it(
    'is ready again, with no review to prove it, once a worker comes up',
    async () => {
      const real = await workerEntryBeside(import.meta.url);
      const counter = join(dir, 'starts');
      writeFileSync(counter, '0');
      const flaky = join(dir, 'flaky.mjs');
      // The first two starts fail as a broken bundle does; the third loads the real worker.
      writeFileSync(
        flaky,
        `import { readFileSync, writeFileSync } from 'node:fs';
const starts = Number(readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;
writeFileSync(${JSON.stringify(counter)}, String(starts));
if (starts <= 2) throw new Error('start ' + starts + ' failed');
await import(${JSON.stringify(real.url.href)});
`,
      );
      const { amender, readyz } = served({ url: pathToFileURL(flaky) });
      const unready = await until('readyz 503', readyz, (r) => r.status === 503);
      expect(unready.body.message).toContain('start 2 failed');
      const ready = await until('readyz 200', readyz, (r) => r.status === 200);
      expect(ready.body.ready).toBe(true);
      const res = await post(amender);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { response: { allowed: boolean } }).response.allowed).toBe(true);
    },
    30_000,
  );

  it(
    'is 503 while no worker can build the policy set its reviews need',
    async () => {
      const entry = await bundledWorkerEntry(new URL('../fixtures/set-heap-review-worker.ts', import.meta.url));
      const { amender, readyz } = served(entry);
      expect((await readyz()).status).toBe(200);
      // The first review sends the set; every worker runs out of heap building it.
      const first = await post(amender);
      const answer = (await first.json()) as { response: { allowed: boolean; status: { message: string } } };
      expect(answer.response.allowed).toBe(false); // its policy's failurePolicy: Fail
      expect(answer.response.status.message).toContain('out of memory');
      const unready = await until('readyz 503', readyz, (r) => r.status === 503);
      expect(unready.body.message).toMatch(/^the review workers cannot start: /);
    },
    40_000,
  );
});
