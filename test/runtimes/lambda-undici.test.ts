/**
 * The built Lambda bundle answers without loading Node's fetch implementation (undici, with crypto, tls
 * and http2: ~50 ms of a cold start): src/adapters/web and lambda-request.ts. A fresh process imports the bundle,
 * answers one invocation of each kind of reply (reviews, probes, metrics, every error the app makes, a
 * cluster's 401) and reports whether undici is in `process.moduleLoadList`; then it touches the global
 * `Response`, which must load it, so the check can see undici when it is there.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clusters/index.js';
import { ensureBuilt, httpCases, LAMBDA_BUNDLE, ROOT, type HttpCase } from './helpers.js';
import { functionUrlEvent, httpApiEvent } from './lambda.js';

const { node24Binary } = (await import(join(ROOT, 'scripts/node24.mjs'))) as { node24Binary(): string | undefined };

const UNDICI = 'NativeModule internal/deps/undici/undici';
const MARK = 'undici-check:';

/** Imports the bundle, invokes it with each event, then touches the global Response; prints one line. */
const CHILD = `
const loaded = () => process.moduleLoadList.includes(${JSON.stringify(UNDICI)});
const { handler } = await import(process.argv[1]);
const afterInit = loaded();
const statuses = [];
for (const event of JSON.parse(process.argv[2])) statuses.push((await handler(event, { getRemainingTimeInMillis: () => 10000 })).statusCode);
const afterInvocations = loaded();
void globalThis.Response;
console.log(${JSON.stringify(MARK)} + JSON.stringify({ afterInit, afterInvocations, afterTouchingResponse: loaded(), statuses }));
`;

interface Report {
  afterInit: boolean;
  afterInvocations: boolean;
  afterTouchingResponse: boolean;
  statuses: number[];
}

function coldRun(node: string, events: unknown[], env: Record<string, string>): Report {
  const child = spawnSync(node, ['--input-type=module', '-e', CHILD, pathToFileURL(LAMBDA_BUNDLE).href, JSON.stringify(events)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', AMENDER_LOG_LEVEL: 'error', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const line = child.stdout.split('\n').find((l) => l.startsWith(MARK));
  if (!line) throw new Error(`no report from the child (status ${child.status}): ${child.stderr}`);
  return JSON.parse(line.slice(MARK.length)) as Report;
}

const SECRET = 'correct-horse-battery-staple';

async function scenario(): Promise<{ events: unknown[]; expected: number[]; env: Record<string, string> }> {
  const cases = httpCases();
  const [sample] = cases;
  const calls: [unknown, number][] = [
    ...cases.map((c, i): [unknown, number] => [i % 2 === 0 ? functionUrlEvent(c, false) : httpApiEvent(c, 'prod', true), expectedStatus(c)]),
    [functionUrlEvent({ name: 'head', method: 'GET', path: '/healthz' }, false), 200],
    [{ ...functionUrlEvent({ name: 'head', method: 'GET', path: '/healthz' }, false), requestContext: { http: { method: 'HEAD' }, stage: '$default' } }, 200],
    [functionUrlEvent({ name: 'ready', method: 'GET', path: '/readyz' }, false), 200],
    [functionUrlEvent({ name: 'metrics', method: 'GET', path: '/metrics' }, false), 200],
    [functionUrlEvent({ ...sample, headers: { 'content-type': 'text/plain' } }, false), 415],
    [functionUrlEvent({ ...sample, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }, false), 415],
    [{ version: '1.0', httpMethod: 'POST', path: '/mutate' }, 400],
    [functionUrlEvent({ ...sample, path: `/clusters/edge/${SECRET}/mutate` }, false), 200],
    [functionUrlEvent({ ...sample, path: '/clusters/edge/mutate', headers: { 'content-type': 'application/json', authorization: 'Bearer wrong' } }, false), 401],
  ];
  // A body without Content-Length is read as a stream (src/server/body.ts).
  const chunked = functionUrlEvent(sample, false) as { headers: Record<string, string> };
  delete chunked.headers['content-length'];
  calls.push([chunked, 200]);
  const env = { AMENDER_POLICY_SOURCES: 'bundled', AMENDER_CLUSTERS: 'edge', AMENDER_CLUSTER_EDGE_SOURCES: 'bundled', AMENDER_CLUSTER_EDGE_SECRET_HASHES: await hashSecret(SECRET) };
  return { events: calls.map(([event]) => event), expected: calls.map(([, status]) => status), env };
}

function expectedStatus(c: HttpCase): number {
  if (c.method === 'GET' && c.path === '/mutate') return 405;
  if (c.path === '/nowhere') return 404;
  if (c.name === 'malformed JSON' || c.name === 'a review of the wrong kind') return 400;
  return 200;
}

const runtimes: [string, string | undefined][] = [
  [`Node ${process.versions.node}`, process.execPath],
  ['Node 24', node24Binary()],
];

describe('the Lambda bundle does not load undici', () => {
  for (const [name, node] of runtimes) {
    it.skipIf(!node)(`during init nor through every kind of reply (${name}); touching Response does`, async () => {
      ensureBuilt();
      const { events, expected, env } = await scenario();
      const report = coldRun(node!, events, env);
      expect(report.statuses).toEqual(expected);
      expect(report).toMatchObject({ afterInit: false, afterInvocations: false, afterTouchingResponse: true });
    });
  }
});
