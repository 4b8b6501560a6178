/**
 * A seeded, bounded fuzz sweep of the HTTP/1.x layer of the built Node server (dist/node/main.js) and of the
 * built Worker in workerd (dist/workers, through miniflare), over raw sockets on loopback
 * (helpers/http-damage.ts): real requests (a review on the default and on a cluster route, chunked and with a length,
 * probes, metrics, two pipelined on one connection) damaged in one to three places: a header line dropped,
 * repeated or given an odd value (lengths that lie or overflow, both a length and chunked encoding, bare
 * CR or LF, NUL, a huge value), the request line or a chunk size changed, the text cut, a piece repeated,
 * bytes inserted. Each is sent, the connection half-closed, and what comes back read.
 *
 * Whatever the bytes: every reply on the connection is a well-formed HTTP/1.1 response that is not a 5xx,
 * or the server closes without one; the connection ends within seconds, never held. Afterwards the server
 * still answers a review exactly as before and its log has no error and no stack (the Node server also
 * stops cleanly).
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_HTTP_SEEDS=1,2,3 and FUZZ_HTTP_CASES=n sweep more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clusters/index.js';
import { ensureBuilt, ROOT } from '../node/built.js';
import type { Running } from '../node/bundle.js';
import { startWorker, type RunningWorker } from '../runtimes/workers.js';
import { REVIEW, SECRET, sweepHttp } from './helpers/http-damage.js';
import { troubleIn } from './helpers/log-trouble.js';
import { seedsFrom } from './helpers/prng.js';
import { startReady } from './started.js';

const SEEDS = seedsFrom(process.env.FUZZ_HTTP_SEEDS, [0x4771]);
const CASES_PER_SEED = Number(process.env.FUZZ_HTTP_CASES ?? 400);

type Reply = { status: number; patch: unknown };

async function reviewAt(origin: string): Promise<Reply> {
  const res = await fetch(`${origin}/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: REVIEW });
  return { status: res.status, patch: ((await res.json()) as { response?: { patch?: string } }).response?.patch };
}

/** The sweep's seeds against `origin`, which answers a review as before afterwards. */
function sweepEach(origin: () => string, logs: () => Record<string, unknown>[], refusedByPlatform?: (status: number, body: string) => boolean): void {
  let before: Reply;
  beforeAll(async () => {
    before = await reviewAt(origin());
    expect(before.status).toBe(200);
    expect(before.patch).toBeTypeOf('string');
  });
  it.each(SEEDS.map((seed) => [seed]))(`answers each of ${CASES_PER_SEED} damaged requests of seed %i well-formed and below 500, or closes, and keeps serving`, async (seed) => {
    const { counts, broken } = await sweepHttp(Number(new URL(origin()).port), seed, CASES_PER_SEED, refusedByPlatform);
    expect(broken.join('\n\n')).toBe('');
    // Not a vacuous sweep: damaged requests are both refused and still served.
    expect(counts.ok).toBeGreaterThan(CASES_PER_SEED / 20);
    expect(counts.clientError).toBeGreaterThan(CASES_PER_SEED / 10);
    expect(await reviewAt(origin())).toEqual(before);
    expect((await fetch(`${origin()}/healthz`)).status).toBe(200);
    expect(troubleIn(logs())).toEqual([]);
  }, 120_000);
}

describe('damaged HTTP/1.x requests against the built Node server', () => {
  let server: Running;
  beforeAll(async () => {
    ensureBuilt();
    server = await startReady({
      AMENDER_CLUSTERS: 'alpha',
      AMENDER_CLUSTER_ALPHA_SOURCES: `file://${ROOT}policies/default-labels.yaml`,
      AMENDER_CLUSTER_ALPHA_SECRET_HASHES: await hashSecret(SECRET),
    });
  });
  afterAll(async () => {
    expect(server?.stderr()).toBe('');
    expect(await server?.stop()).toBe(0);
  });
  sweepEach(() => server.url, () => server.lines);
});

describe('damaged HTTP/1.x requests against the built Worker in workerd', () => {
  let worker: RunningWorker;
  beforeAll(async () => {
    ensureBuilt();
    worker = await startWorker({});
  });
  afterAll(async () => {
    // The Worker's script never throws: what workerd reports are its own refusals, of its HTTP layer
    // (kj/compat), of a CONNECT, and of miniflare's entry worker reading a Host that is no host (`x:99999`,
    // `[::1`; a Worker that only echoes its URL gets the same).
    const uncaught = worker?.other.filter((line) => line.includes('Uncaught exception')) ?? [];
    const platform = /Uncaught exception: (kj\/compat\/(http|url)\.c\+\+|.*jsg\.TypeError: Incoming CONNECT on a worker not supported|.*remote\.jsg\.TypeError: Invalid URL string\.$)/;
    expect(uncaught.filter((line) => !platform.test(line))).toEqual([]);
    await worker?.dispose();
  });
  // workerd, the local runtime, answers some requests it cannot read (a Content-Length past 2^63, a Host
  // that is no host name, an unknown method) itself, with a 500 or 501 in plain text ("Internal Server
  // Error", "ERROR: Unrecognized request method."), before the Worker runs; Cloudflare's edge refuses them in
  // front of it. The Worker's own answers are JSON.
  sweepEach(() => worker.origin, () => worker.logs, (status, body) => (status === 500 || status === 501) && !body.startsWith('{'));
});
