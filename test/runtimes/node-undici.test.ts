/**
 * The built Node server answers without loading Node's fetch implementation (undici, with crypto, tls
 * and http2: tens of milliseconds of a cold start): src/adapters/node-request.ts and node-listener.ts,
 * and node:http2 loaded only for TLS. The server runs with a preload (NODE_OPTIONS --import) that, as the
 * process exits, records whether undici, http2 and tls are in `process.moduleLoadList`, then touches the
 * global `Response`, which must load undici, so the check can see it when it is there. Every kind of
 * reply is asked for first, over plain HTTP/1.1, with the review pool (the default) and without.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clusters/index.js';
import { startBundle } from '../node/bundle.js';
import { ensureBuilt, httpCases, ROOT, type HttpCase } from './helpers.js';

const { node24Binary } = (await import(join(ROOT, 'scripts/node24.mjs'))) as { node24Binary(): string | undefined };

const dir = mkdtempSync(join(tmpdir(), 'amender-node-undici-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REPORT = join(dir, 'report.json');
const PRELOAD = join(dir, 'preload.mjs');
writeFileSync(
  PRELOAD,
  `import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
const has = (name) => process.moduleLoadList.includes('NativeModule ' + name);
if (isMainThread) process.on('exit', () => {
  const report = { undici: has('internal/deps/undici/undici'), http2: has('http2'), tls: has('tls') };
  void globalThis.Response;
  report.undiciAfterTouchingResponse = has('internal/deps/undici/undici');
  writeFileSync(${JSON.stringify(REPORT)}, JSON.stringify(report));
});
`,
);

const SECRET = 'correct-horse-battery-staple';

function expectedStatus(c: HttpCase): number {
  if (c.method === 'GET' && c.path === '/mutate') return 405;
  if (c.path === '/nowhere') return 404;
  if (c.name === 'malformed JSON' || c.name === 'a review of the wrong kind') return 400;
  return 200;
}

/** Each call and the status it must get: every case of the runtimes, probes, metrics, refusals, a cluster. */
type Call = { send: (origin: string) => Promise<Response>; status: number };

function calls(): Call[] {
  const cases = httpCases();
  const sample = cases[0];
  const send = (c: HttpCase, init: RequestInit = {}) => (origin: string): Promise<Response> =>
    fetch(new URL(c.path, origin), { method: c.method, headers: c.headers, ...(c.body !== undefined ? { body: c.body } : {}), signal: AbortSignal.timeout(10_000), ...init });
  const list: [Call['send'], number][] = [
    ...cases.map((c): [Call['send'], number] => [send(c), expectedStatus(c)]),
    [send({ name: 'head', method: 'GET', path: '/healthz' }, { method: 'HEAD' }), 200],
    [send({ name: 'ready', method: 'GET', path: '/readyz' }), 200],
    [send({ name: 'metrics', method: 'GET', path: '/metrics' }), 200],
    [send({ ...sample, headers: { 'content-type': 'text/plain' } }), 415],
    [send({ ...sample, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }), 415],
    [send({ ...sample, path: `/clusters/edge/${SECRET}/mutate` }), 200],
    [send({ ...sample, path: '/clusters/edge/mutate', headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' } }), 401],
    // A body without Content-Length (chunked) is read as a stream (src/server/body.ts).
    [send(sample, { body: new Blob([sample.body!]).stream(), duplex: 'half' } as RequestInit), 200],
  ];
  return list.map(([send, status]) => ({ send, status }));
}

const runtimes: [string, string | undefined][] = [
  [`Node ${process.versions.node}`, process.execPath],
  ['Node 24', node24Binary()],
];

describe('the built Node server does not load undici, http2 nor tls over plain HTTP', () => {
  for (const [name, node] of runtimes) {
    for (const workers of ['2', '0']) {
      it.skipIf(!node)(`through every kind of reply (${name}, AMENDER_WORKERS=${workers}); touching Response does`, async () => {
        ensureBuilt();
        rmSync(REPORT, { force: true });
        const env = {
          AMENDER_WORKERS: workers,
          AMENDER_POLICY_SOURCES: 'bundled',
          AMENDER_CLUSTERS: 'edge',
          AMENDER_CLUSTER_EDGE_SOURCES: 'bundled',
          AMENDER_CLUSTER_EDGE_SECRET_HASHES: await hashSecret(SECRET),
          NODE_OPTIONS: `--import=${pathToFileURL(PRELOAD).href}`,
        };
        const server = await startBundle(env, { node: node! });
        const statuses: number[] = [];
        const expected: number[] = [];
        try {
          for (const call of calls()) {
            const response = await call.send(server.url);
            await response.arrayBuffer();
            statuses.push(response.status);
            expected.push(call.status);
          }
        } finally {
          expect(await server.stop()).toBe(0);
        }
        expect(statuses).toEqual(expected);
        expect(JSON.parse(readFileSync(REPORT, 'utf8'))).toEqual({ undici: false, http2: false, tls: false, undiciAfterTouchingResponse: true });
      });
    }
  }
});
