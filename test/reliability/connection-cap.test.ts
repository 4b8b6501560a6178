/**
 * AMENDER_MAX_CONNECTIONS against the built Node server (dist/node/main.js), HTTP/1.1 and HTTPS (HTTP/2
 * and HTTP/1.1): at the cap, a new connection closes the connection idle longest (a keep-alive connection
 * with no request in flight, an HTTP/2 session with no stream open — sent GOAWAY —, a connection that has
 * sent nothing for a second) and its review is answered; a connection with a request in flight is never
 * closed for it; with every connection busy, the new one is closed at once, as before. Loopback only.
 */
import { connect as h2Connect, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../node/built.js';
import { startBundle, waitFor, type Running } from '../node/bundle.js';
import { makeTestPki, type TestPki } from '../node/tls.js';
import { podReview } from '../sources/helpers.js';
import { openRaw, statusOf, type RawConnection } from './raw-http.js';

const REVIEW = JSON.stringify(podReview());
const CAP = 4;

beforeAll(() => ensureBuilt());

const portOf = (server: Running) => Number(new URL(server.url).port);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const reviewRequest = (close: boolean) =>
  `POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(REVIEW)}\r\n${close ? 'Connection: close\r\n' : ''}\r\n${REVIEW}`;

/** Whether `c` is closed within `ms` (false: still open then). */
async function closedWithin(c: RawConnection | { closed: Promise<unknown> }, ms: number): Promise<boolean> {
  return Promise.race([c.closed.then(() => true), sleep(ms).then(() => false)]);
}

/** A keep-alive connection that got an answer to GET /healthz and now sends nothing. */
async function idleKeepAlive(port: number): Promise<RawConnection> {
  const c = await openRaw(port);
  c.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await c.waitFor(/\r\n\r\n[\s\S]+/);
  return c;
}

/** A connection with a review in flight: its headers and half its body sent. */
async function busyReview(port: number): Promise<RawConnection> {
  const c = await openRaw(port);
  const request = reviewRequest(false);
  c.socket.write(request.slice(0, request.length - 100));
  return c;
}

/**
 * A new keep-alive connection's review: its reply, the connection kept open (it takes a place in turn), or
 * '' when the connection was closed instead.
 */
async function newReview(port: number, kept: RawConnection[]): Promise<string> {
  const c = await openRaw(port);
  kept.push(c);
  c.socket.write(reviewRequest(false));
  return c.waitFor('"kind":"AdmissionReview"').catch(() => c.received());
}

/** GET /metrics over `c` (kept alive). */
async function metricsOver(c: RawConnection): Promise<string> {
  const before = c.received().length;
  c.socket.write('GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n');
  const text = await c.waitFor(/amender_http_idle_connections_closed_total \d+\n/);
  return text.slice(before);
}

function counter(metrics: string, name: string): number {
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics);
  return m ? Number(m[1]) : NaN;
}

describe('HTTP/1.1 at AMENDER_MAX_CONNECTIONS', () => {
  it('closes the keep-alive connection idle longest for a new client, whose review is answered; never a connection with a request in flight', async () => {
    const server = await startBundle({ AMENDER_MAX_CONNECTIONS: String(CAP) });
    const held: RawConnection[] = [];
    try {
      const port = portOf(server);
      // One busy, then three idle in turn: the first idle one is the one idle longest.
      const busy = await busyReview(port);
      held.push(busy);
      for (let i = 0; i < CAP - 1; i++) held.push(await idleKeepAlive(port));
      const reply = await newReview(port, held);
      expect(statusOf(reply)).toBe(200);
      expect(reply).toContain('"kind":"AdmissionReview"');
      expect(reply).toContain('"allowed":true');
      // The idle connection that answered first is gone; the busy one and the later idle ones are not.
      expect(await closedWithin(held[1], 5000)).toBe(true);
      expect(await held[1].closed).toEqual({}); // closed, not reset
      expect([busy, held[2], held[3]].some((c) => c.isClosed())).toBe(false);

      // Two more new clients: the next idle ones make room, in the order they became idle.
      expect(statusOf(await newReview(port, held))).toBe(200);
      expect(await closedWithin(held[2], 5000)).toBe(true);
      expect(statusOf(await newReview(port, held))).toBe(200);
      expect(await closedWithin(held[3], 5000)).toBe(true);
      // The busy connection was never closed: its review ends and is answered.
      expect(busy.isClosed()).toBe(false);
      const request = reviewRequest(false);
      busy.socket.write(request.slice(request.length - 100));
      expect(statusOf(await busy.waitFor('"kind":"AdmissionReview"'))).toBe(200);

      // Answered, it is idle itself now (the only other connection): metrics over it.
      const metrics = await metricsOver(busy);
      expect(counter(metrics, 'amender_http_idle_connections_closed_total')).toBe(3);
      expect(counter(metrics, 'amender_http_connections_refused_total')).toBe(0);
      await waitFor('the idle connections closed line', () => server.lines.some((l) => l.msg === 'idle connections closed'));
      expect(server.lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'idle connections closed', count: 1 }));
    } finally {
      for (const c of held) c.socket.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  it('closes a connection that has sent nothing once it has been open a second, not before', async () => {
    const server = await startBundle({ AMENDER_MAX_CONNECTIONS: String(CAP) });
    const held: RawConnection[] = [];
    try {
      const port = portOf(server);
      for (let i = 0; i < CAP; i++) held.push(await openRaw(port));
      // Just opened: a client about to send its request. The new one is refused instead.
      const early = await openRaw(port);
      expect(await closedWithin(early, 5000)).toBe(true);
      expect(early.received()).toBe('');
      expect(held.some((c) => c.isClosed())).toBe(false);
      // Past the grace they are idle: the oldest makes room.
      await sleep(1500);
      const reply = await newReview(port, held);
      expect(statusOf(reply)).toBe(200);
      expect(reply).toContain('"kind":"AdmissionReview"');
      expect(await closedWithin(held[0], 5000)).toBe(true);
      expect(held.slice(1).some((c) => c.isClosed())).toBe(false);
    } finally {
      for (const c of held) c.socket.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  it('refuses a new connection at once, as before, when every connection has a request in flight (or one arriving), and serves them all', async () => {
    const server = await startBundle({ AMENDER_MAX_CONNECTIONS: String(CAP) });
    const held: RawConnection[] = [];
    try {
      const port = portOf(server);
      for (let i = 0; i < CAP - 1; i++) held.push(await busyReview(port));
      // A keep-alive connection whose next request's headers are arriving is not idle either.
      const arriving = await idleKeepAlive(port);
      arriving.socket.write('GET /healthz HTTP/1.1\r\nHost: local');
      held.push(arriving);
      await sleep(1500); // past the grace: nothing here is idle all the same
      const over: RawConnection[] = [];
      for (let i = 0; i < 3; i++) over.push(await openRaw(port));
      for (const c of over) {
        expect(await closedWithin(c, 5000)).toBe(true);
        expect(c.received()).toBe('');
      }
      expect(held.some((c) => c.isClosed())).toBe(false);
      const request = reviewRequest(false);
      for (const c of held.slice(0, CAP - 1)) c.socket.write(request.slice(request.length - 100));
      for (const c of held.slice(0, CAP - 1)) expect(statusOf(await c.waitFor('"kind":"AdmissionReview"'))).toBe(200);
      arriving.socket.write('host\r\n\r\n');
      await arriving.waitFor(/HTTP\/1\.1 200[\s\S]*HTTP\/1\.1 200/);
      const metrics = await metricsOver(held[0]);
      expect(counter(metrics, 'amender_http_connections_refused_total')).toBe(3);
      expect(counter(metrics, 'amender_http_idle_connections_closed_total')).toBe(0);
    } finally {
      for (const c of held) c.socket.destroy();
      expect(await server.stop()).toBe(0);
    }
  });
});

/** One request over an HTTP/2 session: status and body. */
function h2Request(session: ClientHttp2Session, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request(headers);
    let status = 0;
    let text = '';
    req.setEncoding('utf8');
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (d: string) => (text += d));
    req.on('end', () => resolve({ status, body: text }));
    req.on('error', reject);
    req.on('close', () => reject(new Error(`stream closed (status ${status})`)));
    req.end(body);
  });
}

const reviewHeaders = { ':method': 'POST', ':path': '/mutate', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(REVIEW)) };

interface Watched {
  session: ClientHttp2Session;
  goaway: boolean;
  closed: Promise<void>;
  isClosed: () => boolean;
}

function watch(session: ClientHttp2Session): Watched {
  let done = false;
  const w: Watched = {
    session,
    goaway: false,
    closed: new Promise<void>((resolve) => session.once('close', () => resolve())),
    isClosed: () => done,
  };
  session.on('error', () => {});
  session.on('goaway', () => (w.goaway = true));
  void w.closed.then(() => (done = true));
  return w;
}

describe('HTTPS (HTTP/2 and HTTP/1.1) at AMENDER_MAX_CONNECTIONS', () => {
  let pki: TestPki;
  let server: Running;
  const url = () => `https://localhost:${portOf(server)}`;
  beforeAll(async () => {
    pki = makeTestPki();
  });
  afterAll(() => pki.dispose());

  const start = () => startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_MAX_CONNECTIONS: String(CAP) });

  /** An HTTPS HTTP/1.1 keep-alive connection that got an answer and now sends nothing. */
  async function idleTlsHttp1(): Promise<TLSSocket> {
    const socket = tlsConnect({ port: portOf(server), host: '127.0.0.1', servername: 'localhost', ca: pki.ca, ALPNProtocols: ['http/1.1'] });
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    return socket;
  }

  it('sends GOAWAY to the HTTP/2 session idle longest (or closes the idle HTTP/1.1 connection) for a new client, whose review is answered; never a session with a stream open', async () => {
    server = await start();
    const sessions: Watched[] = [];
    let tls1: TLSSocket | undefined;
    try {
      // A session with a review in flight (half its body sent): busy, though it is the oldest.
      const busy = watch(h2Connect(url(), { ca: pki.ca }));
      sessions.push(busy);
      const stream = busy.session.request(reviewHeaders);
      stream.setEncoding('utf8');
      let busyReply = '';
      let busyStatus = 0;
      stream.on('response', (h) => (busyStatus = Number(h[':status'])));
      stream.on('data', (d: string) => (busyReply += d));
      const busyDone = new Promise((resolve) => stream.on('end', resolve));
      stream.write(REVIEW.slice(0, 100));
      // Two idle HTTP/2 sessions (each answered once), then an idle HTTP/1.1 over TLS.
      for (let i = 0; i < 2; i++) {
        const w = watch(h2Connect(url(), { ca: pki.ca }));
        expect((await h2Request(w.session, { ':path': '/healthz' })).status).toBe(200);
        sessions.push(w);
      }
      tls1 = await idleTlsHttp1();
      const tls1Closed = new Promise((resolve) => tls1!.once('close', resolve));

      for (let i = 0; i < 3; i++) {
        const fresh = watch(h2Connect(url(), { ca: pki.ca }));
        const reply = await h2Request(fresh.session, reviewHeaders, REVIEW);
        expect(reply.status).toBe(200);
        expect(reply.body).toContain('"kind":"AdmissionReview"');
        sessions.push(fresh); // kept open: it takes a place in turn
        // In the order they became idle: the two sessions (sent GOAWAY), then the HTTP/1.1 connection.
        if (i < 2) {
          await sessions[1 + i].closed;
          expect(sessions[1 + i].goaway).toBe(true);
        } else await tls1Closed;
      }
      expect(busy.isClosed()).toBe(false);
      stream.end(REVIEW.slice(100));
      await busyDone;
      expect(busyStatus).toBe(200);
      expect(busyReply).toContain('"kind":"AdmissionReview"');
      const metrics = await h2Request(busy.session, { ':path': '/metrics' });
      expect(counter(metrics.body, 'amender_http_idle_connections_closed_total')).toBe(3);
      expect(counter(metrics.body, 'amender_http_connections_refused_total')).toBe(0);
      expect(server.lines.filter((l) => l.level === 'error')).toEqual([]);
      expect(server.stderr()).toBe('');
    } finally {
      for (const w of sessions) w.session.destroy();
      tls1?.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  it('refuses a new connection at once when every session has a stream in flight, and answers them all', async () => {
    server = await start();
    const sessions: Watched[] = [];
    try {
      const streams = [];
      for (let i = 0; i < CAP; i++) {
        const w = watch(h2Connect(url(), { ca: pki.ca }));
        sessions.push(w);
        const stream = w.session.request(reviewHeaders);
        stream.setEncoding('utf8');
        let body = '';
        stream.on('data', (d: string) => (body += d));
        const done = new Promise<string>((resolve) => stream.on('end', () => resolve(body)));
        stream.write(REVIEW.slice(0, 100));
        streams.push({ stream, done });
        await new Promise((r) => w.session.once('remoteSettings', r));
      }
      await sleep(1500); // past the grace
      const over = watch(h2Connect(url(), { ca: pki.ca }));
      const refused = await h2Request(over.session, { ':path': '/healthz' }).then(
        () => 'answered',
        () => 'refused',
      );
      await over.closed;
      expect(refused).toBe('refused');
      expect(sessions.some((w) => w.isClosed() || w.goaway)).toBe(false);
      for (const { stream } of streams) stream.end(REVIEW.slice(100));
      for (const { done } of streams) expect(await done).toContain('"kind":"AdmissionReview"');
      const metrics = await h2Request(sessions[0].session, { ':path': '/metrics' });
      expect(counter(metrics.body, 'amender_http_connections_refused_total')).toBeGreaterThanOrEqual(1);
      expect(counter(metrics.body, 'amender_http_idle_connections_closed_total')).toBe(0);
      expect(server.lines.filter((l) => l.level === 'error')).toEqual([]);
      expect(server.stderr()).toBe('');
    } finally {
      for (const w of sessions) w.session.destroy();
      expect(await server.stop()).toBe(0);
    }
  });

  it('closes a TLS connection that has sent nothing past the grace, and an HTTP/2 session that opened no stream, for a new client', async () => {
    server = await start();
    const raws: RawConnection[] = [];
    const sessions: Watched[] = [];
    const kept: Watched[] = [];
    try {
      for (let i = 0; i < 2; i++) raws.push(await openRaw(portOf(server)));
      for (let i = 0; i < 2; i++) {
        const w = watch(h2Connect(url(), { ca: pki.ca }));
        await new Promise((r) => w.session.once('remoteSettings', r));
        sessions.push(w);
      }
      await sleep(1500);
      for (let i = 0; i < 4; i++) {
        const fresh = watch(h2Connect(url(), { ca: pki.ca }));
        const reply = await h2Request(fresh.session, reviewHeaders, REVIEW);
        expect(reply.status).toBe(200);
        kept.push(fresh);
      }
      for (const c of raws) expect(await closedWithin(c, 5000)).toBe(true);
      for (const w of sessions) {
        expect(await closedWithin(w, 5000)).toBe(true);
        expect(w.goaway).toBe(true);
      }
    } finally {
      for (const c of raws) c.socket.destroy();
      for (const w of [...sessions, ...kept]) w.session.destroy();
      expect(await server.stop()).toBe(0);
    }
  });
});
