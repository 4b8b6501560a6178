/**
 * Bodies that wait for the body budget, unread, sent in pieces of one byte, against the built Node server
 * (dist/node/main.js over TLS): HTTP/2 streams without content-length whose flow-control windows are filled
 * with DATA frames of one byte, and HTTP/1.1 requests whose chunked bodies come in chunks of one byte. A
 * slow review holds the budget (AMENDER_BODY_BUDGET_MB=1; a body of unknown length holds the body limit,
 * 8 MiB, so it waits for the budget to be empty) while they wait. What each waiting request holds must be
 * about the bytes it received, not a Buffer per piece: before, Node kept every frame as its own Buffer in
 * the stream's readable buffer (~40 bytes each, ~2.6 MB per stream for a window sent a byte a frame).
 * Bounded in count and time, on loopback; the growth of the server's RSS (from /proc) is the measure.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../node/built.js';
import { startBundle, waitFor, type Running } from '../node/bundle.js';
import { makeTestPki, type TestPki } from '../node/tls.js';
import { labelPolicy, SLOW_CONDITION } from './helpers/label-policy.js';
import { FLAG, FRAME, frame, headerBlock, openRawH2 } from './h2-raw.js';
import { hasProc, rssMb } from './helpers/process-memory.js';

/** A pod-create review of a Pod labelled `app: <app>`. */
function review(app: string): string {
  const value = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8'));
  value.request.object.metadata.labels.app = app;
  return JSON.stringify(value);
}

describe.skipIf(!hasProc)('bodies waiting for the body budget, sent a byte a piece', () => {
  let pki: TestPki;
  let dir: string;
  let server: Running;
  let port: number;

  const get = (path: string) =>
    new Promise<string>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path, servername: 'localhost', ca: pki.ca }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end();
    });
  const metric = async (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await get('/metrics'))?.[1]);

  /**
   * A review that takes seconds of a worker (the slow policy), holding its body's bytes of the budget
   * meanwhile, until `leave` closes its connection: the server then stops it (its client is gone) and gives
   * its bytes back, so a test waits only as long as its own requests need the budget held.
   */
  const slowReview = () => {
    const body = review('slow');
    const req = httpsRequest({
      host: '127.0.0.1',
      port,
      path: '/mutate',
      method: 'POST',
      servername: 'localhost',
      ca: pki.ca,
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answered = new Promise<number | 'left'>((resolve) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', () => resolve('left'));
      req.on('close', () => resolve('left'));
    });
    req.end(body);
    return { answered, leave: () => req.destroy() };
  };

  beforeAll(async () => {
    ensureBuilt();
    pki = makeTestPki();
    dir = mkdtempSync(join(tmpdir(), 'amender-waiting-'));
    // Seconds of work for a Pod labelled app: slow (what holds the budget), none for the others.
    writeFileSync(join(dir, 'policies.yaml'), labelPolicy('hold', 'hold', 400, `object.metadata.labels.app != "slow" || ${SLOW_CONDITION}`, 30));
    server = await startBundle({
      AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`,
      AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`,
      AMENDER_POLICY_SOURCES: `file://${dir}`,
      AMENDER_REFRESH_SECONDS: '0',
      AMENDER_BODY_BUDGET_MB: '1',
      AMENDER_REVIEW_DEADLINE_MS: '40000',
      AMENDER_WORKER_GRACE_MS: '100',
      AMENDER_REQUEST_TIMEOUT_MS: '60000',
    });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    pki?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Starts the slow review, waits until it holds the budget, runs `attack` (which leaves `waiting` requests
   * waiting, their pieces sent), and returns the growth of the server's RSS meanwhile, once it is steady,
   * checking that they still wait (unread) then.
   */
  async function whileWaiting(waiting: number, attack: () => Promise<() => void>): Promise<number> {
    const pid = server.child.pid!;
    // Held by the slow review, the budget is never empty: every body of unknown length waits for it.
    const slow = slowReview();
    await waitFor('the slow review holds the budget', async () => (await metric('amender_request_body_bytes_held')) > 0);
    const base = rssMb(pid);
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    let end: (() => void) | undefined;
    try {
      end = await attack();
      await waitFor(`${waiting} requests waiting`, async () => (await metric('amender_requests_waiting_for_body_budget')) === waiting, 20_000);
      // Until the server has taken in what was sent: its RSS steady for a second (at most 15 s).
      for (let last = rssMb(pid), steady = 0, n = 0; steady < 4 && n < 60; n++) {
        await new Promise((r) => setTimeout(r, 250));
        const now = rssMb(pid);
        steady = now > last ? 0 : steady + 1;
        last = now;
      }
      peak = Math.max(peak, rssMb(pid));
      // Still waiting, unread (most of them at least: under load one may have been let go meanwhile).
      expect(await metric('amender_requests_waiting_for_body_budget')).toBeGreaterThan(waiting / 2);
    } finally {
      clearInterval(sampler);
      end?.();
      slow.leave();
    }
    // The slow review, its client gone, was still running: it held the budget the whole time.
    expect(await slow.answered).toBe('left');
    // Its bytes given back, those left waiting get the budget in turn, find their connections gone (a
    // paused HTTP/1.1 socket may not show its close before) and end.
    await waitFor('the budget given back', async () => (await metric('amender_request_body_bytes_held')) === 0, 45_000);
    await waitFor('no request waiting', async () => (await metric('amender_requests_waiting_for_body_budget')) === 0, 45_000);
    return peak - base;
  }

  it('HTTP/2 streams whose windows are filled with DATA frames of one byte hold about their bytes while they wait', { timeout: 120_000 }, async () => {
    const STREAMS = 32;
    let sent = 0;
    const growthMb = await whileWaiting(STREAMS, async () => {
      // A connection per stream: Node 22+ opens a connection's own window again only as its streams are read.
      const connections = await Promise.all(Array.from({ length: STREAMS }, () => openRawH2(port)));
      const block = headerBlock('POST', '/mutate', [['content-type', 'application/json']]);
      for (const h2 of connections) h2.socket.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, block));
      await waitFor('the streams waiting', async () => (await metric('amender_requests_waiting_for_body_budget')) === STREAMS);
      const frames = Buffer.concat(Array.from({ length: 4096 }, () => frame(FRAME.DATA, 0, 1, Buffer.from(' '))));
      const until = performance.now() + 60_000;
      // Each stream's window (64 KiB), a byte a frame: the server never opens it again while the stream waits.
      await Promise.all(
        connections.map((h2) =>
          h2.pump(
            () => {
              const n = Math.min(4096, h2.window(1));
              if (n <= 0) return undefined;
              h2.sent(1, n);
              sent += n;
              return frames.subarray(0, 10 * n);
            },
            Math.ceil(65_535 / 4096),
            until - performance.now(),
          ),
        ),
      );
      return () => connections.forEach((h2) => h2.socket.destroy());
    });
    expect(sent).toBe(STREAMS * 65_535);
    // Before: +277 MB (Node 20) and +395 MB (Node 24), a Buffer kept per frame; now ~40 MB, what the
    // frames' buffers cost until collected (the 2 MB received are what is held).
    expect(growthMb).toBeLessThan(100);
  });

  it('HTTP/1.1 requests whose chunked bodies come in chunks of one byte hold about their bytes while they wait', { timeout: 120_000 }, async () => {
    const REQUESTS = 32;
    const CHUNKS = 256 * 1024; // more than the socket and the request's stream take in while unread
    const chunk = Buffer.from('1\r\n \r\n'.repeat(4096));
    const head = `POST /mutate HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`;
    const sockets: TLSSocket[] = [];
    /** Their TCP connections, which a TLS socket cannot reset itself. */
    const connections: Socket[] = [];
    let written = 0;
    const growthMb = await whileWaiting(REQUESTS, async () => {
      for (let r = 0; r < REQUESTS; r++) {
        const tcp = netConnect({ port, host: '127.0.0.1' });
        tcp.on('error', () => {});
        const socket = tlsConnect({ socket: tcp, servername: 'localhost', ca: pki.ca, ALPNProtocols: ['http/1.1'] });
        socket.on('error', () => {});
        sockets.push(socket);
        connections.push(tcp);
        socket.write(head);
      }
      await waitFor('the requests waiting', async () => (await metric('amender_requests_waiting_for_body_budget')) === REQUESTS);
      // Each socket is written to until it stops taking (the server stopped reading it), at most CHUNKS chunks.
      await Promise.all(
        sockets.map(async (socket) => {
          for (let n = 0; n < CHUNKS; n += 4096) {
            written += 4096;
            if (!socket.write(chunk)) {
              const drained = await new Promise<boolean>((r) => {
                const timer = setTimeout(() => r(false), 1000);
                socket.once('drain', () => {
                  clearTimeout(timer);
                  r(true);
                });
              });
              if (!drained) return;
            }
          }
        }),
      );
      // Reset, not closed: after a FIN the server, which reads a waiting request only once it has the
      // budget, would first parse the megabytes of one-byte chunks in the kernel's buffers, a request at a
      // time (~25 s for the 32); a reset ends each at its first read.
      return () => connections.forEach((tcp) => tcp.resetAndDestroy());
    });
    expect(written).toBeGreaterThan(0);
    // Before: +250 MB (Node 20) and +793 MB (Node 24), a Buffer kept per chunk; now 4-10 MB.
    expect(growthMb).toBeLessThan(100);
  });
});
