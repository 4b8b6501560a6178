import { connect as tcpConnect } from 'node:net';
import { connect as http2Connect } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeServer, type RunningServer } from '../../src/adapters/node.js';
import { h1Request, h2Request } from './clients.js';
import { makeTestPki, type TestPki } from './tls.js';
import { headerOf, openRaw, rawExchange, statusOf } from '../reliability/raw-http.js';
import { waitFor } from './bundle.js';

let pki: TestPki;
beforeAll(() => {
  pki = makeTestPki();
});
afterAll(() => pki.dispose());

/** A handler that answers with what it saw, or waits for `release` on /slow. */
function echoHandler() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const slowStarted = new Promise<void>((r) => (started = r));
  const fetch = async (req: Request) => {
    const url = new URL(req.url);
    if (url.pathname === '/slow') {
      started();
      await released;
    }
    if (url.pathname === '/throw') throw new Error('boom');
    const body = await req.text();
    return Response.json({ method: req.method, path: url.pathname, body });
  };
  return { fetch, release, slowStarted };
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('startNodeServer over HTTP', () => {
  it('serves the handler on an ephemeral port and closes', async () => {
    const h = echoHandler();
    const server = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1' });
    try {
      expect(server.protocol).toBe('http');
      const reply = await h1Request(`${server.url}/x`, { body: 'hello' });
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body)).toEqual({ method: 'POST', path: '/x', body: 'hello' });
    } finally {
      await server.close();
    }
    expect(await refused(server.port)).toBe(true);
  });

  it('answers 500 when the handler throws, and keeps serving', async () => {
    const errors: unknown[] = [];
    const h = echoHandler();
    const server = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1', onError: (e) => errors.push(e) });
    try {
      expect((await h1Request(`${server.url}/throw`)).status).toBe(500);
      expect(errors).toHaveLength(1);
      expect((await h1Request(`${server.url}/ok`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('drains on close: the request in flight completes, new connections are refused', async () => {
    const h = echoHandler();
    const server = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1' });
    const pending = h1Request(`${server.url}/slow`, { body: 'late' });
    await h.slowStarted;
    expect(server.inFlight()).toBe(1);
    const closed = server.close();
    expect(await refused(server.port)).toBe(true);
    h.release();
    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body).body).toBe('late');
    await closed;
  });

  it('cuts a request still running after the shutdown timeout', async () => {
    const h = echoHandler();
    const server = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1', shutdownTimeoutMs: 100 });
    const pending = h1Request(`${server.url}/slow`).then(
      () => 'answered',
      () => 'cut',
    );
    await h.slowStarted;
    await server.close();
    expect(await pending).toBe('cut');
    h.release();
  });
});

describe('startNodeServer request bodies', () => {
  /** A handler that answers with the length and a digest of the bytes it read. */
  const digestHandler = async (req: Request) => {
    const bytes = new Uint8Array(await req.arrayBuffer());
    let sum = 0;
    for (let i = 0; i < bytes.length; i++) sum = (sum * 31 + bytes[i] * (i + 1)) % 1_000_000_007;
    return Response.json({ length: bytes.length, sum });
  };
  const expected = (body: Buffer) => {
    let sum = 0;
    for (let i = 0; i < body.length; i++) sum = (sum * 31 + body[i] * (i + 1)) % 1_000_000_007;
    return { length: body.length, sum };
  };
  const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251));

  it('reads a body that comes in several parts with its Content-Length exactly (HTTP/1.1)', async () => {
    const server = await startNodeServer({ fetch: digestHandler, port: 0, host: '127.0.0.1' });
    try {
      const conn = await openRaw(server.port);
      conn.socket.write(`POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
      for (let at = 0; at < body.length; at += 70_000) {
        conn.socket.write(body.subarray(at, at + 70_000));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await conn.closed;
      const reply = conn.received();
      expect(statusOf(reply)).toBe(200);
      expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual(expected(body));
    } finally {
      await server.close();
    }
  });

  it('reads a large body over HTTP/2, with and without its Content-Length', async () => {
    const server = await startNodeServer({ fetch: digestHandler, port: 0, host: '127.0.0.1', tls: { cert: pki.cert, key: pki.key } });
    try {
      const origin = `https://localhost:${server.port}`;
      const declared = await h2Request(origin, '/x', pki.ca, { body, headers: { 'content-length': String(body.length) } });
      expect(JSON.parse(declared.body)).toEqual(expected(body));
      const undeclared = await h2Request(origin, '/x', pki.ca, { body });
      expect(JSON.parse(undeclared.body)).toEqual(expected(body));
    } finally {
      await server.close();
    }
  });
});

describe('startNodeServer over HTTP/2', () => {
  it('bounds the streams one connection may have open at once', async () => {
    const server = await startNodeServer({ fetch: async () => new Response('ok'), port: 0, host: '127.0.0.1', tls: { cert: pki.cert, key: pki.key } });
    const session = http2Connect(`https://localhost:${server.port}`, { ca: pki.ca });
    try {
      await new Promise((resolve, reject) => {
        session.once('remoteSettings', resolve);
        session.once('error', reject);
      });
      expect(session.remoteSettings.maxConcurrentStreams).toBe(250);
    } finally {
      session.close();
      await server.close();
    }
  });
});

describe('startNodeServer and a client that stops reading', () => {
  it('closes a connection whose client stopped reading a large answer, and serves the others', { timeout: 30_000 }, async () => {
    // Larger than the sockets' buffers on both sides: the server's write cannot finish while nobody reads.
    const large = 'x'.repeat(32 * 1024 * 1024);
    const server = await startNodeServer({ fetch: async (req) => new Response(new URL(req.url).pathname === '/large' ? large : 'small'), port: 0, host: '127.0.0.1', requestTimeoutMs: 2000, idleTimeoutMs: 1000 });
    try {
      const stalled = await openRaw(server.port);
      stalled.socket.pause();
      stalled.socket.write('GET /large HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await waitFor('the stalled request in flight', () => server.inFlight() === 1);
      // The server gives up on it: the request is no longer in flight, though the client read nothing.
      await waitFor('the stalled connection closed by the server', () => server.inFlight() === 0, 15_000);
      // Reading again, the client finds the connection ended before the whole answer.
      stalled.socket.resume();
      await stalled.closed;
      expect(stalled.received().length).toBeLessThan(large.length);
      expect((await h1Request(`${server.url}/small`, { method: 'GET' })).body).toBe('small');
    } finally {
      await server.close();
    }
  });
});

describe('startNodeServer edges (HTTP/1.1)', () => {
  it('answers a malformed Host or target 400 through onBadRequest, never onError', async () => {
    const h = echoHandler();
    const bad: unknown[] = [];
    const errors: unknown[] = [];
    const server = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1', onBadRequest: (r) => bad.push(r), onError: (e) => errors.push(e) });
    try {
      const reply = await rawExchange(server.port, 'GET /x HTTP/1.1\r\nHost: a b\r\n\r\n');
      expect(statusOf(reply)).toBe(400);
      expect(headerOf(reply, 'connection')).toBe('close');
      expect(bad).toEqual([{ method: 'GET', target: '/x', message: expect.any(String) }]);
      expect(statusOf(await rawExchange(server.port, 'PUT * HTTP/1.1\r\nHost: localhost\r\n\r\n'))).toBe(400);
      expect(bad).toHaveLength(2);
      expect(errors).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('drains: a request sent on a keep-alive connection after close() is answered with Connection: close', async () => {
    const h = echoHandler();
    const server = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1' });
    const conn = await openRaw(server.port);
    conn.socket.write('POST /one HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\n\r\na');
    await conn.waitFor('"body":"a"');
    expect(headerOf(conn.received(), 'connection')).toBe('keep-alive');
    const closed = server.close();
    expect(server.draining()).toBe(true);
    conn.socket.write('POST /two HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\n\r\nb');
    expect(await conn.closed).toEqual({});
    const second = conn.received().slice(conn.received().lastIndexOf('HTTP/1.1 '));
    expect(statusOf(second)).toBe(200);
    expect(headerOf(second, 'connection')).toBe('close');
    expect(second).toContain('"body":"b"');
    await closed;
  });

  it('drains: the response of a request in flight carries Connection: close; an idle connection is closed without a reply', async () => {
    const h = echoHandler();
    // A long grace period: the idle connection must be closed at the quiet time (1 s), not cut at 20 s.
    const server = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1', shutdownTimeoutMs: 20_000 });
    const idle = await openRaw(server.port);
    const busy = await openRaw(server.port);
    busy.socket.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await h.slowStarted;
    const closed = server.close();
    h.release();
    await busy.closed;
    expect(statusOf(busy.received())).toBe(200);
    expect(headerOf(busy.received(), 'connection')).toBe('close');
    expect(await Promise.race([idle.closed, new Promise((r) => setTimeout(() => r('still open after 10 s'), 10_000))])).toEqual({});
    expect(idle.received()).toBe('');
    await closed;
  });
});

describe('startNodeServer over HTTPS', () => {
  let server: RunningServer;
  let handler: ReturnType<typeof echoHandler>;
  beforeAll(async () => {
    handler = echoHandler();
    server = await startNodeServer({ fetch: handler.fetch, port: 0, host: '127.0.0.1', tls: { cert: pki.cert, key: pki.key } });
  });
  afterAll(() => server.close());

  it('speaks HTTP/2 by ALPN to a client that verifies the CA', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const origin = `https://localhost:${server.port}`;
    const reply = await h2Request(origin, '/h2', pki.ca, { body: 'over h2' });
    expect(reply.alpn).toBe('h2');
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ method: 'POST', path: '/h2', body: 'over h2' });
  });

  it('speaks HTTP/1.1 to a client that offers only http/1.1', async () => {
    const reply = await h1Request(`https://localhost:${server.port}/h1`, { ca: pki.ca, body: 'over h1' });
    expect(reply.alpn).toBe('http/1.1');
    expect(JSON.parse(reply.body).body).toBe('over h1');
  });

  it('is refused by a client that does not trust the CA', async () => {
    await expect(h1Request(`https://localhost:${server.port}/h1`)).rejects.toThrow(/certificate/);
  });

  it('takes a rotated certificate for new connections', async () => {
    const next = makeTestPki();
    try {
      const s = await startNodeServer({ fetch: handler.fetch, port: 0, host: '127.0.0.1', tls: { cert: pki.cert, key: pki.key } });
      try {
        s.setTls({ cert: next.cert, key: next.key });
        const reply = await h2Request(`https://localhost:${s.port}`, '/rotated', next.ca, { body: 'new cert' });
        expect(reply.status).toBe(200);
        await expect(h2Request(`https://localhost:${s.port}`, '/rotated', pki.ca, { body: 'old ca' })).rejects.toThrow(/certificate|self.signed|verify/i);
      } finally {
        await s.close();
      }
    } finally {
      next.dispose();
    }
  });

  it('refuses setTls on a plain HTTP server', async () => {
    const s = await startNodeServer({ fetch: handler.fetch, port: 0, host: '127.0.0.1' });
    try {
      expect(() => s.setTls({ cert: pki.cert, key: pki.key })).toThrow('this server was started without TLS');
    } finally {
      await s.close();
    }
  });

  it('drains HTTP/2 sessions on close', async () => {
    const h = echoHandler();
    const s = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1', tls: { cert: pki.cert, key: pki.key } });
    const pending = h2Request(`https://localhost:${s.port}`, '/slow', pki.ca, { body: 'drained' });
    await h.slowStarted;
    const closed = s.close();
    h.release();
    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body).body).toBe('drained');
    await closed;
    expect(await refused(s.port)).toBe(true);
  });
});
