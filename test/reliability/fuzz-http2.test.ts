/**
 * A seeded, bounded fuzz sweep of the HTTP/2 layer of the built Node server (dist/node/main.js over TLS,
 * as the API server calls it), from a raw client on loopback (helpers/h2-damage.ts): real conversations (a
 * review on the default and on a cluster route, with and without a length, in one or several DATA frames,
 * padded, with trailers, its header block in CONTINUATION frames; probes and metrics; several streams on
 * one connection) damaged in one to three places: a header field dropped, repeated, moved or given an odd
 * value (pseudo-headers, lengths, connection-specific fields, upper case, NUL, CR LF, 70 KB), flags turned
 * on or off, stream ids changed, frames dropped, repeated, moved or inserted (PRIORITY, RST_STREAM,
 * WINDOW_UPDATE, SETTINGS, PING, GOAWAY, PUSH_PROMISE, unknown types, oversized DATA), bodies changed,
 * HPACK bytes no encoder writes, length fields that lie; one in five also damaged on the wire.
 *
 * Whatever the frames: the server's frames are well-formed, no response has a 5xx status, every stream the
 * client opened is answered, reset or given up by a GOAWAY (or the connection closed) within the server's
 * timeouts, and the connection ends once the client leaves. Afterwards the server answers a review over
 * HTTP/2 and HTTP/1.1 exactly as before, holds no body bytes, no queued review and no busy worker, its log
 * has no error and no stack, and it stops cleanly.
 *
 * The server runs on the Node running the tests, and on Node 24 (the deployments') when its binary is
 * installed, with other seeds and half the cases.
 *
 * Fixed seeds: a failure names its seed and case. FUZZ_HTTP2_SEEDS=1,2,3 and FUZZ_HTTP2_CASES=n sweep more.
 */
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clusters/index.js';
import { ensureBuilt, ROOT } from '../node/built.js';
import { startBundle, type Running } from '../node/bundle.js';
import { h1Request, h2Request } from '../node/clients.js';
import { OTHER_NODES, THIS_NODE } from '../node/nodes.js';
import { makeTestPki, type TestPki } from '../node/tls.js';
import { exchangeH2, F, openedStreams, sweepH2, T, undamagedBytes, type Frame } from './helpers/h2-damage.js';
import { REVIEW, SECRET } from './helpers/http-damage.js';
import { troubleIn } from './helpers/log-trouble.js';
import { seedsFrom } from './helpers/prng.js';
import { replyPatch } from './helpers/reply-patch.js';

const SEEDS = seedsFrom(process.env.FUZZ_HTTP2_SEEDS, [0x4772]);
const CASES_PER_SEED = Number(process.env.FUZZ_HTTP2_CASES ?? 200);

/** The server's timeouts, short so that a held stream shows within a case. */
const REQUEST_TIMEOUT_MS = 1500;
const REVIEW_DEADLINE_MS = 1000;
/** A connection with nothing moving is closed after the review deadline + 5 s (README, AMENDER_REQUEST_TIMEOUT_MS). */
const IDLE_MS = REVIEW_DEADLINE_MS + 5000;
/**
 * How long a case may take to settle, then to close once the client has left. Node 20's HTTP/2 layer
 * (before Node 22) sends a GOAWAY for a protocol error but leaves the connection open until the inactivity
 * timeout, which Node re-arms when the GOAWAY was its last write: twice IDLE_MS on a quiet machine, and
 * past 14 s once with other test files running beside (README, "Connection limits"); three times is the
 * bound here. Node 22+ closes it at once.
 */
const paceOn = (nodeMajor: number) => {
  const ms = (nodeMajor < 22 ? 3 * IDLE_MS : IDLE_MS) + 2000;
  // More connections at once where they linger: the sweep's time is mostly theirs.
  return { settleMs: ms, closeMs: ms, concurrency: nodeMajor < 22 ? 64 : 16 };
};

/** The paths of the sweep's undamaged conversations. */
const USUAL_PATHS = new Set(['/mutate', '/mutate?timeout=5s', `/clusters/alpha/${SECRET}/mutate`, '/healthz', '/readyz', '/metrics']);

describe("the sweep's own checks, against a plain node:http2 server", () => {
  let pki: TestPki;
  let server: Http2SecureServer;
  const sessions = new Set<ServerHttp2Session>();
  /**
   * How the server treats a request for a path the undamaged conversations do not have. (It has no
   * timeouts, so conversations that never finish a request hold it too: what matters is that the sweep
   * reports such servers.)
   */
  let unusualPath: '500' | 'hold' = '500';
  beforeAll(async () => {
    pki = makeTestPki();
    server = createSecureServer({ cert: pki.cert, key: pki.key }, (req, res) => {
      if (req.url.startsWith('/status/')) {
        res.writeHead(Number(req.url.slice('/status/'.length)), { 'x-filler': 'f'.repeat(Number(req.url.slice(-1)) * 10) });
        return res.end('body');
      }
      if (USUAL_PATHS.has(req.url)) return res.end('{}');
      if (unusualPath === '500') return res.writeHead(500).end();
      // 'hold': never answered
    });
    server.on('session', (session) => sessions.add(session.once('close', () => sessions.delete(session))));
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  });
  afterAll(async () => {
    // Node 20 keeps a session nghttp2 ended for a protocol error open, and this server has no timeout.
    for (const session of sessions) session.destroy();
    await new Promise((closed) => server?.close(closed));
    pki?.dispose();
  });

  // The oracle of the sweep: it must read every status nghttp2 writes, static entries, literals and Huffman codes alike.
  it('reads every status from 200 to 599 as nghttp2 encodes it', async () => {
    const port = (server.address() as AddressInfo).port;
    const read: number[] = [];
    for (let first = 200; first < 600; first += 50) {
      const frames: Frame[] = [];
      for (let status = first; status < first + 50; status++) {
        const path = `/status/${status}`;
        frames.push({ type: T.HEADERS, flags: F.END_HEADERS | F.END_STREAM, stream: 2 * (status - first) + 1, fields: [[':method', 'GET'], [':scheme', 'https'], [':path', path], [':authority', 'localhost']] });
      }
      const bytes = undamagedBytes(frames);
      const reply = await exchangeH2(port, bytes, openedStreams(frames), { settleMs: 5000, closeMs: 5000 });
      expect(reply.malformed).toBeUndefined();
      expect(reply.settled).toBe(true);
      read.push(...reply.statuses);
    }
    expect(read.sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => 200 + i));
  }, 60_000);

  it('fails a server that answers 500, or never answers, when a path is odd', async () => {
    const port = (server.address() as AddressInfo).port;
    const pace = { settleMs: 1500, closeMs: 1500, concurrency: 16 };
    unusualPath = '500';
    expect((await sweepH2(port, 1, 300, pace)).broken.join('\n')).toMatch(/→ statuses (\d+, )*500/);
    unusualPath = 'hold';
    expect((await sweepH2(port, 1, 300, pace)).broken.join('\n')).toMatch(/→ streams neither answered nor reset, the connection still open/);
  }, 60_000);
});

type Reply = { status: number; patch: unknown };

const JSON_BODY = { 'content-type': 'application/json' };

async function reviewOverH2(port: number, ca: string): Promise<Reply> {
  const reply = await h2Request(`https://localhost:${port}`, '/mutate', ca, { headers: JSON_BODY, body: REVIEW });
  return { status: reply.status, patch: replyPatch(reply.body) };
}

/** A gauge's value in the Prometheus text, summed over its series. */
function gauge(metrics: string, name: string): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** The Node running the tests, and the deployments' Node 24 when installed (a fresh seed, fewer cases). */
const RUNTIMES = [
  { ...THIS_NODE, seeds: SEEDS, cases: CASES_PER_SEED },
  ...OTHER_NODES.map((node) => ({ ...node, seeds: SEEDS.map((seed) => seed + 24), cases: Math.ceil(CASES_PER_SEED / 2) })),
];

for (const runtime of RUNTIMES) {
  describe.skipIf(!runtime.path)(`damaged HTTP/2 conversations against the built Node server on ${runtime.name}`, () => {
    let pki: TestPki;
    let server: Running;
    let before: Reply;
    const port = () => Number(new URL(server.url).port);
    beforeAll(async () => {
      ensureBuilt();
      pki = makeTestPki();
      server = await startBundle(
        {
          AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`,
          AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`,
          AMENDER_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
          AMENDER_HEADERS_TIMEOUT_MS: '1000',
          AMENDER_BODY_TIMEOUT_MS: '1000',
          AMENDER_REVIEW_DEADLINE_MS: String(REVIEW_DEADLINE_MS),
          AMENDER_CLUSTERS: 'alpha',
          AMENDER_CLUSTER_ALPHA_SOURCES: `file://${ROOT}policies/default-labels.yaml`,
          AMENDER_CLUSTER_ALPHA_SECRET_HASHES: await hashSecret(SECRET),
        },
        { node: runtime.path },
      );
      before = await reviewOverH2(port(), pki.ca);
      expect(before.status).toBe(200);
      expect(before.patch).toBeTypeOf('string');
    });
    afterAll(async () => {
      expect(server?.stderr()).toBe('');
      expect(await server?.stop()).toBe(0);
      pki?.dispose();
    });

    it.each(runtime.seeds.map((seed) => [seed]))(`answers each of ${runtime.cases} damaged conversations of seed %i with well-formed frames, below 500, never held, and keeps serving`, async (seed) => {
      const { counts, broken } = await sweepH2(port(), seed, runtime.cases, paceOn(runtime.major));
      expect(broken.join('\n\n')).toBe('');
      // Not a vacuous sweep: damaged conversations are served, refused, reset and ended.
      expect(counts.ok).toBeGreaterThan(runtime.cases / 20);
      expect(counts.clientError).toBeGreaterThan(runtime.cases / 50);
      expect(counts.reset).toBeGreaterThan(runtime.cases / 50);
      expect(counts.goaway).toBeGreaterThan(runtime.cases / 20);

      expect(await reviewOverH2(port(), pki.ca)).toEqual(before);
      const overHttp1 = await h1Request(`https://localhost:${port()}/mutate`, { ca: pki.ca, headers: JSON_BODY, body: REVIEW });
      expect(overHttp1.status).toBe(200);
      expect(replyPatch(overHttp1.body)).toBe(before.patch);
      // Nothing left behind by the streams that were cut, reset or never finished.
      const metrics = (await h1Request(`https://localhost:${port()}/metrics`, { ca: pki.ca, method: 'GET' })).body;
      expect({
        bodyBytesHeld: gauge(metrics, 'amender_request_body_bytes_held'),
        waitingForBudget: gauge(metrics, 'amender_requests_waiting_for_body_budget'),
        queued: gauge(metrics, 'amender_review_queue_length'),
        busyWorkers: gauge(metrics, 'amender_workers_busy'),
      }).toEqual({ bodyBytesHeld: 0, waitingForBudget: 0, queued: 0, busyWorkers: 0 });
      expect(troubleIn(server.lines)).toEqual([]);
    }, 300_000);
  });
}
