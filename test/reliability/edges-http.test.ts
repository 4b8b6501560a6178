/**
 * Issue 9, item 7 ("HTTP edges"), against the built Node server (dist/node/main.js) with raw sockets:
 * a malformed Host or request target is a 400 with no stack in the log; headers dripped a line at a time
 * are cut at the header timeout (HTTP/1.1, and a TLS connection that never finishes its handshake or
 * never sends a request); connections over AMENDER_MAX_CONNECTIONS are closed at once while the first
 * ones are held, busy, and served (idle ones make room: connection-cap.test.ts); a compressed review is a 415; a path secret never reaches a log line, on any
 * `/clusters/...` path, matched or not.
 */
import { connect as h2Connect, constants as h2Constants, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clusters/index.js';
import { ROOT, ensureBuilt } from '../node/built.js';
import { startBundle, waitFor, type Running } from '../node/bundle.js';
import { makeTestPki, type TestPki } from '../node/tls.js';
import { podReview } from '../sources/helpers.js';
import { troubleIn } from './helpers/log-trouble.js';
import { openRaw, rawExchange, statusOf, type RawConnection } from './raw-http.js';
import { startReady } from './started.js';

const SECRET = 'c0ffee'.repeat(10) + 'beef';
const REVIEW = JSON.stringify(podReview());

beforeAll(() => ensureBuilt());

/** A cluster `alpha` served from a file, beside the bundled default set. */
async function clusterEnv(): Promise<Record<string, string>> {
  return {
    AMENDER_CLUSTERS: 'alpha',
    AMENDER_CLUSTER_ALPHA_SOURCES: `file://${ROOT}policies/default-labels.yaml`,
    AMENDER_CLUSTER_ALPHA_SECRET_HASHES: await hashSecret(SECRET),
  };
}

const portOf = (server: Running) => Number(new URL(server.url).port);


describe('malformed requests, compressed bodies and path secrets', () => {
  let server: Running;
  beforeAll(async () => {
    server = await startReady(await clusterEnv());
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  it('answers a malformed Host or request target 400 with a Status body, and logs no stack', async () => {
    const port = portOf(server);
    const malformed = [
      'GET /healthz HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n',
      'GET /health\\z HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
      'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
      `POST /clusters/alpha/${SECRET}/mutate HTTP/1.1\r\nHost: a b\r\nContent-Type: application/json\r\nContent-Length: ${REVIEW.length}\r\nConnection: close\r\n\r\n${REVIEW}`,
    ];
    for (const request of malformed) {
      const reply = await rawExchange(port, request);
      expect(statusOf(reply), request).toBe(400);
      const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
      expect(body).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
      expect(String(body.message)).toMatch(/^malformed request: /);
      expect(reply).not.toContain(SECRET);
    }
    // HTTP/1.0 may omit Host: served, not an error.
    expect(statusOf(await rawExchange(port, 'GET /healthz HTTP/1.0\r\n\r\n'))).toBe(200);
    // The server still serves afterwards.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    await waitFor('four log lines of malformed requests', () => server.lines.filter((l) => l.status === 400 && String(l.message).startsWith('malformed request')).length === 4);
    expect(server.lines).toContainEqual(expect.objectContaining({ msg: 'request', method: 'POST', path: '/clusters/alpha/[redacted]/mutate', status: 400 }));
    expect(troubleIn(server.lines)).toEqual([]);
    expect(server.stderr()).toBe('');
  });

  it('answers a review with a Content-Encoding other than identity 415, on the default and a cluster route', async () => {
    const gzipped = gzipSync(REVIEW);
    for (const [path, headers] of [
      ['/mutate', {}],
      ['/clusters/alpha/mutate', { authorization: `Bearer ${SECRET}` }],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...headers },
        body: gzipped,
        signal: AbortSignal.timeout(5000),
      });
      expect(res.status, path).toBe(415);
      expect(res.headers.get('accept-encoding')).toBe('identity');
      expect(((await res.json()) as Record<string, unknown>).message).toBe('Content-Encoding "gzip" is not accepted: send the review uncompressed');
    }
    const identity = await fetch(`${server.url}/mutate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      body: REVIEW,
      signal: AbortSignal.timeout(5000),
    });
    expect(identity.status).toBe(200);
  });

  it('keeps a path secret out of every log line and reply of a /clusters/ path that matches no route', async () => {
    const paths = [`/clusters/alpha/${SECRET}//mutate`, `/clusters/alpha/${SECRET}/Mutate`, `/clusters/alpha/${SECRET}/mutate/x`];
    for (const path of paths) {
      const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: REVIEW, signal: AbortSignal.timeout(5000) });
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain(SECRET);
    }
    await waitFor('three 404 log lines', () => server.lines.filter((l) => l.msg === 'request' && l.status === 404).length >= 3);
    expect(server.lines.filter((l) => l.msg === 'request' && l.status === 404).map((l) => l.path)).toEqual(
      expect.arrayContaining(['/clusters/alpha/[redacted]']),
    );
    expect(JSON.stringify(server.lines) + server.stderr()).not.toContain(SECRET);
  });
});

describe('header and request timeouts', () => {
  it('closes an HTTP/1.1 connection whose headers drip in, at the header timeout', async () => {
    const server = await startReady({ AMENDER_HEADERS_TIMEOUT_MS: '1000', AMENDER_REQUEST_TIMEOUT_MS: '5000' });
    let conn: RawConnection | undefined;
    try {
      conn = await openRaw(portOf(server));
      conn.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
      // One header line every 250 ms for up to 10 s, longer than either timeout.
      for (let i = 0; i < 40 && !conn.isClosed(); i++) {
        await new Promise((r) => setTimeout(r, 250));
        if (!conn.isClosed()) conn.socket.write(`X-Drip-${i}: y\r\n`);
      }
      expect(conn.isClosed()).toBe(true);
      expect(statusOf(conn.received())).toBe(408);
    } finally {
      conn?.socket.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  describe('over TLS', () => {
    let pki: TestPki;
    let server: Running;
    beforeAll(async () => {
      pki = makeTestPki();
      server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_HEADERS_TIMEOUT_MS: '1000' }, { until: 'listening' });
    });
    afterAll(async () => {
      expect(await server?.stop()).toBe(0);
      pki?.dispose();
    });

    it('closes a connection that never completes its TLS handshake', async () => {
      const conn: RawConnection = await openRaw(portOf(server));
      let cutByTest = false;
      const timer = setTimeout(() => {
        cutByTest = true;
        conn.socket.destroy();
      }, 10_000);
      await conn.closed;
      clearTimeout(timer);
      expect(cutByTest).toBe(false);
      expect(conn.received()).toBe('');
    });

    it('sends GOAWAY to an HTTP/2 connection that sends no request', async () => {
      const session = h2Connect(`https://localhost:${portOf(server)}`, { ca: pki.ca });
      const outcome = await new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('still open after 10 s'), 10_000);
        session.once('goaway', () => {
          clearTimeout(timer);
          resolve('goaway');
        });
        session.once('error', (err) => resolve(`error ${err.message}`));
      });
      session.destroy();
      expect(outcome).toBe('goaway');
      // A connection that does send a request in time is served.
      const served = h2Connect(`https://localhost:${portOf(server)}`, { ca: pki.ca });
      const status = await new Promise<number>((resolve, reject) => {
        const req = served.request({ ':path': '/healthz' });
        req.on('response', (h) => resolve(Number(h[':status'])));
        req.on('error', reject);
        req.end();
      });
      served.close();
      expect(status).toBe(200);
    });
  });
});

describe('a cap on connections and HTTP/2 connections that send no request', () => {
  it('closes them at the header timeout even when their client never reads, so that they free their connection slots', async () => {
    const pki = makeTestPki();
    const server = await startBundle(
      { AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_HEADERS_TIMEOUT_MS: '1000', AMENDER_MAX_CONNECTIONS: '4' },
      { until: 'listening' },
    );
    const idle: TLSSocket[] = [];
    try {
      // Four connections that speak h2 by ALPN and then neither send nor read anything: every slot held.
      for (let i = 0; i < 4; i++) {
        const socket = tlsConnect({ port: portOf(server), host: '127.0.0.1', servername: 'localhost', ca: pki.ca, ALPNProtocols: ['h2'] });
        socket.on('error', () => {});
        idle.push(socket);
        await new Promise((resolve) => socket.once('secureConnect', resolve));
      }
      // A new connection is refused until the server has closed them (the deadline only detects a hang).
      const healthz = () =>
        new Promise<number | string>((resolve) => {
          const session = h2Connect(`https://localhost:${portOf(server)}`, { ca: pki.ca });
          session.on('error', (err) => resolve(err.message));
          session.on('close', () => resolve('closed'));
          const req = session.request({ ':path': '/healthz' });
          req.on('response', (h) => resolve(Number(h[':status'])));
          req.on('error', (err) => resolve(err.message));
          req.on('close', () => session.destroy());
          req.end();
        });
      await waitFor('a new connection served', async () => (await healthz()) === 200, 15_000);
      expect(idle.every((socket) => !socket.destroyed)).toBe(true); // their clients never closed them
    } finally {
      for (const socket of idle) socket.destroy();
      expect(await server.stop()).toBe(0);
      pki.dispose();
    }
  });
});

describe('a cap on connections', () => {
  it('closes connections over AMENDER_MAX_CONNECTIONS at once while serving the first ones', async () => {
    // No request before the test's own connections: a client's keep-alive connection would take a place.
    const server = await startBundle({ AMENDER_MAX_CONNECTIONS: '4' }, { until: 'listening' });
    const held: RawConnection[] = [];
    const extra: RawConnection[] = [];
    try {
      const port = portOf(server);
      // Each with a request's headers arriving: none is idle, so none is closed to make room (connection-cap.test.ts).
      for (let i = 0; i < 4; i++) {
        held.push(await openRaw(port));
        held[i].socket.write('GET /metrics HTTP/1.1\r\n');
      }
      // The server accepts in order: the first four are its connections, the next ones are over the cap.
      for (let i = 0; i < 3; i++) extra.push(await openRaw(port));
      const outcomes = await Promise.all(
        extra.map((c) => Promise.race([c.closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open after 5 s'), 5000))])),
      );
      expect(outcomes).toEqual(['closed', 'closed', 'closed']);
      expect(extra.map((c) => c.received())).toEqual(['', '', '']);

      // The held connections are still served.
      held[0].socket.write('Host: localhost\r\n\r\n');
      const metrics = await held[0].waitFor(/amender_http_connections_refused_total \d+/);
      expect(statusOf(metrics)).toBe(200);
      expect(Number(/amender_http_connections_refused_total (\d+)/.exec(metrics)![1])).toBe(3);
      expect(held.every((c) => !c.isClosed())).toBe(true);

      // Once one is closed, a new connection is accepted again.
      held[3].socket.destroy();
      await held[3].closed;
      await waitFor('a connection accepted again', async () => {
        const reply = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', 2000);
        return statusOf(reply) === 200;
      });
      // Log lines are written in batches (src/adapters/node-log.ts): wait for this one.
      await waitFor('the connections refused line', () => server.lines.some((l) => l.msg === 'connections refused'));
      expect(server.lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'connections refused', count: 1 }));
    } finally {
      for (const c of [...held, ...extra]) c.socket.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  it('answers probes on AMENDER_PROBE_PORT while the main port holds every connection it may, and nothing but probes there, through the drain', async () => {
    /** A connection to `port` once the server takes one again (a slot freed a moment ago). */
    const waitForOpen = async (port: number): Promise<RawConnection> => {
      for (let i = 0; ; i++) {
        const c = await openRaw(port);
        const closed = await Promise.race([c.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 200))]);
        if (!closed) return c;
        if (i > 25) throw new Error('no connection accepted within 5 s');
      }
    };
    const server = await startBundle({ AMENDER_MAX_CONNECTIONS: '2', AMENDER_PROBE_PORT: '0' }, { until: 'listening' });
    const held: RawConnection[] = [];
    try {
      const listening = server.lines.find((l) => l.msg === 'listening')!;
      expect(listening.probeUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const probePort = Number(new URL(String(listening.probeUrl)).port);
      expect(probePort).not.toBe(portOf(server));
      // Each with a request's headers arriving: not idle, so the main port is full (connection-cap.test.ts).
      for (let i = 0; i < 2; i++) {
        held.push(await openRaw(portOf(server)));
        held[i].socket.write('GET /healthz HTTP/1.1\r\n');
      }
      const over = await openRaw(portOf(server));
      await over.closed; // the main port is full
      const probe = (request: string) => rawExchange(probePort, request, 5000);
      await waitFor('the set ready on the probe port', async () => statusOf(await probe('GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')) === 200);
      expect(statusOf(await probe('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'))).toBe(200);
      expect(statusOf(await probe('HEAD /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'))).toBe(200);
      // Reviews and metrics are the main port's: the probe port serves probes only.
      expect(statusOf(await probe(`POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(REVIEW)}\r\nConnection: close\r\n\r\n${REVIEW}`))).toBe(404);
      expect(statusOf(await probe('GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'))).toBe(404);

      // SIGTERM while a review's body is still arriving on the main port: the probe port answers through
      // the drain, /readyz 503 (draining), until the review is answered and the process exits.
      for (const c of held.splice(0)) c.socket.destroy();
      const review = await waitForOpen(portOf(server));
      review.socket.write(`POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(REVIEW)}\r\n\r\n${REVIEW.slice(0, 50)}`);
      server.child.kill('SIGTERM');
      await waitFor('the drain begun', () => server.lines.some((l) => l.msg === 'shutting down'));
      const draining = await probe('GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      expect(statusOf(draining)).toBe(503);
      expect(draining).toContain('"draining":true');
      expect(statusOf(await probe('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'))).toBe(200);
      review.socket.write(REVIEW.slice(50));
      expect(statusOf(await review.waitFor(/"kind":"AdmissionReview"/))).toBe(200);
      expect(await server.exit).toBe(0);
    } finally {
      for (const c of held) c.socket.destroy();
      expect(await server.stop()).toBe(0);
    }
  });
});

/** GET /metrics on an HTTP/2 session, as text. */
function metricsOver(session: ClientHttp2Session): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const req = session.request({ ':path': '/metrics' });
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => resolve(text));
    req.on('error', reject);
    req.end();
  });
}

const REFUSED_STREAM = h2Constants.NGHTTP2_REFUSED_STREAM;

describe('a cap on requests in flight', () => {
  let pki: TestPki;
  beforeAll(() => {
    pki = makeTestPki();
  });
  afterAll(() => pki.dispose());

  it('refuses at once (REFUSED_STREAM, unread) a stream over AMENDER_MAX_REQUESTS, however many streams a connection opens and even with its window shut, and serves again once one ends', async () => {
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_MAX_REQUESTS: '4' }, { until: 'listening' });
    const session = h2Connect(`https://localhost:${portOf(server)}`, { ca: pki.ca });
    // A client that never opens its flow-control window: a 503 written to it could never arrive, and its stream stayed open.
    const shut = h2Connect(`https://localhost:${portOf(server)}`, { ca: pki.ca, settings: { initialWindowSize: 0 } });
    shut.on('error', () => {});
    try {
      /** A review stream that sends half its body and waits: the server holds it in flight. */
      const open = () => {
        const stream = session.request({ ':method': 'POST', ':path': '/mutate', 'content-type': 'application/json', 'content-length': String(REVIEW.length) });
        stream.write(REVIEW.slice(0, 100));
        const reply = new Promise<{ status: number; body: string }>((resolve, reject) => {
          let status = 0;
          let body = '';
          stream.setEncoding('utf8');
          stream.on('response', (h) => (status = Number(h[':status'])));
          stream.on('data', (d: string) => (body += d));
          stream.on('end', () => resolve({ status, body }));
          stream.on('error', reject);
        });
        return { stream, reply };
      };
      const held = Array.from({ length: 4 }, open);
      await waitFor('four requests in flight', async () => held.every((h) => h.stream.sentHeaders !== undefined));
      // The server sees the four before the next ones: streams of one connection arrive in order.
      const closeCodes = (streams: ClientHttp2Stream[]) =>
        Promise.all(
          streams.map((stream) => {
            stream.on('error', () => {});
            return new Promise<number | undefined>((resolve) => stream.once('close', () => resolve(stream.rstCode)));
          }),
        );
      const over = [open(), open()];
      for (const o of over) o.reply.catch(() => {});
      expect(await closeCodes(over.map((o) => o.stream))).toEqual([REFUSED_STREAM, REFUSED_STREAM]);
      // The four are still in flight: every stream of the shut connection is refused too, and gone.
      const shutStreams = Array.from({ length: 20 }, () => shut.request({ ':method': 'POST', ':path': '/mutate', 'content-type': 'application/json' }, { endStream: false }));
      expect(await closeCodes(shutStreams)).toEqual(shutStreams.map(() => REFUSED_STREAM));
      // The held ones are served once their bodies are in.
      for (const h of held) h.stream.end(REVIEW.slice(100));
      for (const reply of await Promise.all(held.map((h) => h.reply))) expect(reply.status).toBe(200);
      const after = open();
      after.stream.end(REVIEW.slice(100));
      expect((await after.reply).status).toBe(200);
      const metrics = await metricsOver(session);
      expect(Number(/^amender_http_requests_refused_total (\d+)$/m.exec(metrics)?.[1])).toBe(22);
      await waitFor('the requests refused line', () => server.lines.some((l) => l.msg === 'requests refused'));
      expect(server.lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'requests refused', reason: '4 requests in flight (AMENDER_MAX_REQUESTS)' }));
    } finally {
      shut.destroy();
      session.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  it('ends the oldest request whose body is slow to arrive to make room for a new one, rather than refuse it', async () => {
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_MAX_REQUESTS: '4' }, { until: 'listening' });
    const session = h2Connect(`https://localhost:${portOf(server)}`, { ca: pki.ca });
    try {
      /** A review stream: its whole body, or 100 bytes of it and then nothing. */
      const open = (whole: boolean) => {
        const stream = session.request({ ':method': 'POST', ':path': '/mutate', 'content-type': 'application/json', 'content-length': String(REVIEW.length) });
        if (whole) stream.end(REVIEW);
        else stream.write(REVIEW.slice(0, 100));
        const outcome = new Promise<{ status: number; reset: boolean }>((resolve) => {
          let status = 0;
          stream.on('response', (h) => (status = Number(h[':status'])));
          stream.on('error', () => {});
          stream.resume();
          stream.on('close', () => resolve({ status, reset: stream.rstCode !== 0 && status === 0 }));
        });
        return { stream, outcome };
      };
      const slow = [open(false)];
      await new Promise((resolve) => setTimeout(resolve, 300));
      slow.push(open(false), open(false), open(false));
      // Past a second of reading, the four bodies are slow; the first one is the oldest.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const prompt = open(true);
      expect(await prompt.outcome).toEqual({ status: 200, reset: false });
      expect(await slow[0].outcome).toEqual({ status: 0, reset: true });
      // The others are served once their bodies are in.
      for (const s of slow.slice(1)) s.stream.end(REVIEW.slice(100));
      for (const s of slow.slice(1)) expect((await s.outcome).status).toBe(200);
      const metrics = await metricsOver(session);
      expect(Number(/^amender_http_slow_requests_ended_total (\d+)$/m.exec(metrics)?.[1])).toBe(1);
      expect(Number(/^amender_http_requests_refused_total (\d+)$/m.exec(metrics)?.[1])).toBe(0);
      await waitFor('the slow requests ended line', () => server.lines.some((l) => l.msg === 'slow requests ended'));
    } finally {
      session.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  /**
   * An HTTP/2 client that never opens its flow-control window (SETTINGS_INITIAL_WINDOW_SIZE 0, no
   * WINDOW_UPDATE) gets the heads of its answers and never their bodies: the streams stay open, each
   * holding a slot, and its PINGs keep the session from ever being idle.
   */
  async function stallingSession(url: string, ca: Buffer | string): Promise<{ session: ClientHttp2Session; open(): Promise<{ status: number; reset: boolean }> }> {
    const session = h2Connect(url, { ca, settings: { initialWindowSize: 0 } });
    // A destroyed session emits 'close' a turn later: a PING in between would throw.
    const ping = setInterval(() => {
      if (!session.destroyed && !session.closed) session.ping(() => {});
    }, 200);
    session.once('close', () => clearInterval(ping));
    const open = () => {
      const stream = session.request({ ':method': 'GET', ':path': '/healthz' });
      stream.on('error', () => {});
      return new Promise<{ status: number; reset: boolean }>((resolve) => {
        let status = 0;
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.on('close', () => resolve({ status, reset: stream.rstCode === 0x8 }));
      });
    };
    return { session, open };
  }

  it('ends the oldest request whose answer its client does not take to make room for a new one', async () => {
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_MAX_REQUESTS: '4' }, { until: 'listening' });
    const url = `https://localhost:${portOf(server)}`;
    const stalling = await stallingSession(url, pki.ca);
    const honest = h2Connect(url, { ca: pki.ca });
    try {
      const held = [stalling.open(), stalling.open(), stalling.open(), stalling.open()];
      // Past a second after their answers were written, the four are stalled; a review is served.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const review = honest.request({ ':method': 'POST', ':path': '/mutate', 'content-type': 'application/json', 'content-length': String(REVIEW.length) });
      review.end(REVIEW);
      review.resume();
      const status = await new Promise<number>((resolve, reject) => {
        review.on('response', (h) => resolve(Number(h[':status'])));
        review.on('error', reject);
      });
      expect(status).toBe(200);
      await new Promise((resolve) => review.on('close', resolve));
      // The oldest stalled stream was reset to make room, with its answer's head sent and no body.
      expect(await held[0]).toEqual({ status: 200, reset: true });
      const metrics = await metricsOver(honest);
      expect(Number(/^amender_http_slow_requests_ended_total (\d+)$/m.exec(metrics)?.[1])).toBe(1);
      expect(Number(/^amender_http_requests_refused_total (\d+)$/m.exec(metrics)?.[1])).toBe(0);
    } finally {
      stalling.session.destroy();
      honest.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  it('answers liveness and readiness probes at the cap, over HTTP/2 and HTTP/1.1, from 16 slots of their own, and refuses what is beyond them', async () => {
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_MAX_REQUESTS: '2' }, { until: 'listening' });
    const url = `https://localhost:${portOf(server)}`;
    const session = h2Connect(url, { ca: pki.ca });
    session.on('error', () => {});
    const stalling = await stallingSession(url, pki.ca);
    stalling.session.on('error', () => {});
    /** One GET over HTTP/2: its status, or its reset code when refused. */
    const get = (path: string, method = 'GET') =>
      new Promise<{ status: number; rstCode: number | undefined; body: string }>((resolve) => {
        const stream = session.request({ ':method': method, ':path': path });
        let status = 0;
        let body = '';
        stream.setEncoding('utf8');
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.on('data', (d: string) => (body += d));
        stream.on('error', () => {});
        stream.once('close', () => resolve({ status, rstCode: stream.rstCode, body }));
      });
    /** One GET over HTTP/1.1 (ALPN), on a connection of its own. */
    const getHttp1 = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const socket = tlsConnect({ host: 'localhost', port: portOf(server), ca: pki.ca, ALPNProtocols: ['http/1.1'] }, () =>
          socket.end(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`),
        );
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (d: string) => (text += d));
        socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0)));
        socket.on('error', reject);
      });
    try {
      await waitFor('the default set ready', async () => (await get('/readyz')).status === 200);
      // Two review streams that send a few bytes of their bodies hold both slots (not yet slow: just begun).
      for (let i = 0; i < 2; i++) {
        const stream = session.request({ ':method': 'POST', ':path': '/mutate', 'content-type': 'application/json', 'content-length': String(REVIEW.length) });
        stream.on('error', () => {});
        stream.write(REVIEW.slice(0, 10));
      }
      await waitFor('two requests in flight', async () => (await get('/metrics')).rstCode === REFUSED_STREAM);
      // A review, or /metrics, is refused; the probes are answered, whatever the reviews hold.
      expect((await get('/metrics')).rstCode).toBe(REFUSED_STREAM);
      expect(await get('/healthz')).toEqual({ status: 200, rstCode: 0, body: '{"status":"ok"}' });
      expect((await get('/readyz')).status).toBe(200);
      expect((await get('/healthz', 'HEAD')).status).toBe(200);
      expect((await get('/healthz?verbose=1')).status).toBe(200);
      expect(await getHttp1('/healthz')).toBe(200);
      expect(await getHttp1('/readyz')).toBe(200);
      expect(await getHttp1('/metrics')).toBe(503);
      // Probes whose answers are never taken hold the 16 slots; one more probe is refused, as a review would be.
      const held = Array.from({ length: 16 }, () => stalling.open());
      await waitFor('sixteen probes held', async () => (await get('/healthz')).rstCode === REFUSED_STREAM);
      expect((await get('/readyz')).rstCode).toBe(REFUSED_STREAM);
      stalling.session.destroy();
      await Promise.all(held);
      await waitFor('the slots given back', async () => (await get('/healthz')).status === 200);
    } finally {
      stalling.session.destroy();
      session.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  it('logs every request refused at the cap by the time it stops, even within the cap log\'s window', async () => {
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_MAX_REQUESTS: '2' }, { until: 'listening' });
    const session = h2Connect(`https://localhost:${portOf(server)}`, { ca: pki.ca });
    session.on('error', () => {});
    try {
      // Two review streams that send a few bytes of their bodies hold both slots (not yet slow: just begun).
      for (let i = 0; i < 2; i++) {
        const stream = session.request({ ':method': 'POST', ':path': '/mutate', 'content-type': 'application/json', 'content-length': String(REVIEW.length) });
        stream.on('error', () => {});
        stream.write(REVIEW.slice(0, 10));
      }
      const codes = await Promise.all(
        Array.from({ length: 5 }, () => new Promise<number | undefined>((resolve) => {
          // /metrics: probes (/healthz, /readyz) have slots of their own beyond the cap.
          const stream = session.request({ ':method': 'GET', ':path': '/metrics' });
          stream.on('error', () => {});
          stream.once('close', () => resolve(stream.rstCode));
          stream.resume();
        })),
      );
      expect(codes).toEqual(Array(5).fill(REFUSED_STREAM));
    } finally {
      session.destroy();
      expect(await server.stop()).toBe(0);
    }
    // The first refusal is logged at once and the four after it when the window ends, or when the server stops first.
    const refused = server.lines.filter((l) => l.msg === 'requests refused');
    expect(refused.map((l) => l.count)).toEqual([1, 4]);
    expect(server.lines.findIndex((l) => l.msg === 'requests refused' && l.count === 4)).toBeLessThan(server.lines.findIndex((l) => l.msg === 'stopped'));
  });

  it('ends a request whose answer is not taken within the request timeout, however alive its session', async () => {
    const server = await startBundle(
      { AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_REQUEST_TIMEOUT_MS: '1500', AMENDER_REVIEW_DEADLINE_MS: '1000' },
      { until: 'listening' },
    );
    const stalling = await stallingSession(`https://localhost:${portOf(server)}`, pki.ca);
    try {
      const started = Date.now();
      expect(await stalling.open()).toEqual({ status: 200, reset: true });
      // Reset by the write timeout's sweep (once a second), not by the connection's end.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      expect(stalling.session.closed).toBe(false);
    } finally {
      stalling.session.destroy();
      expect(await server.stop()).toBe(0);
    }
  });
});
