/**
 * Issue 9, item 6 ("Start and stop like a good citizen"), against the built Node server
 * (dist/node/main.js): it listens at once while an unreachable source keeps only its own set out of
 * service; on SIGTERM it answers every request that reached it — in flight, or sent on a keep-alive
 * connection — with `Connection: close`, turns /readyz 503, closes idle connections and exits 0, and no
 * client sees a reset connection.
 */
import { Agent, request } from 'node:http';
import { connect as h2Connect } from 'node:http2';
import { createServer, type Server, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clusters/index.js';
import { ROOT, ensureBuilt } from '../node/built.js';
import { startBundle, waitFor, type Running } from '../node/bundle.js';
import { patchOf, podReview } from '../sources/helpers.js';
import { makeTestPki } from '../node/tls.js';
import { headerOf, openRaw, statusOf } from './raw-http.js';
import { startReady } from './started.js';

const SECRET = 'feed'.repeat(16);
const REVIEW = JSON.stringify(podReview());

beforeAll(() => ensureBuilt());

/** A TCP server on loopback that accepts connections and never answers (storage that hangs). */
async function blackHole(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections: () => accepted,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('start', () => {
  let hole: Awaited<ReturnType<typeof blackHole>>;
  beforeAll(async () => {
    hole = await blackHole();
  });
  afterAll(() => hole?.close());

  it('listens at once while S3 hangs: /healthz 200, the S3 set 503, a cluster with a file source ready and reviewing', async () => {
    const server = await startBundle(
      {
        AMENDER_POLICY_SOURCES: 's3://policies/default',
        AMENDER_S3_ENDPOINT: `http://127.0.0.1:${hole.port}`,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AMENDER_CLUSTERS: 'local',
        AMENDER_CLUSTER_LOCAL_SOURCES: `file://${ROOT}policies/default-labels.yaml`,
        AMENDER_CLUSTER_LOCAL_SECRET_HASHES: await hashSecret(SECRET),
      },
      { until: 'listening' },
    );
    try {
      const bearer = { authorization: `Bearer ${SECRET}` };
      expect((await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5000) })).status).toBe(200);

      // The cluster's set comes from a file: ready as soon as it is read, whatever S3 does.
      await waitFor('the cluster ready', async () => (await fetch(`${server.url}/clusters/local/readyz`, { headers: bearer })).status === 200);
      const reply = await fetch(`${server.url}/clusters/local/mutate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer },
        body: REVIEW,
        signal: AbortSignal.timeout(5000),
      });
      expect(reply.status).toBe(200);
      expect(patchOf((await reply.json()) as { response?: { patch?: string } }).length).toBeGreaterThan(0);

      // The default set's S3 listing hangs: that set alone is not ready and its route answers 503.
      expect(hole.connections()).toBeGreaterThan(0);
      const ready = await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(5000) });
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ ready: false, source: 's3://policies/default', message: 'no policy set is loaded yet' });
      const review = await fetch(`${server.url}/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: REVIEW, signal: AbortSignal.timeout(5000) });
      expect(review.status).toBe(503);
      expect(server.lines.some((l) => l.msg === 'policy sets loaded')).toBe(false); // still waiting for S3
    } finally {
      // SIGTERM while the first load still hangs: it is abandoned and the process exits 0.
      expect(await server.stop()).toBe(0);
    }
  });
});

interface Outcome {
  status?: number;
  connection?: string;
  error?: string;
}

/** One POST of a review over `agent`; errors are outcomes too. */
function post(url: string, agent: Agent): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(`${url}/mutate`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(REVIEW) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, connection: String(res.headers.connection ?? '') }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.setTimeout(10_000, () => req.destroy(new Error('no reply within 10 s')));
    req.end(REVIEW);
  });
}

describe('stop', () => {
  let server: Running;
  beforeAll(async () => {
    server = await startReady({});
  });
  afterAll(async () => {
    if (server) await server.stop();
  });

  it('on SIGTERM under keep-alive load: every request that arrived is answered with Connection: close, /readyz turns 503, no reset, exit 0', async () => {
    const port = Number(new URL(server.url).port);
    const CLIENTS = 4;
    const MAX_REQUESTS = 200;
    const SIGTERM_AFTER = 40;
    let sent = 0;
    let answered = 0;
    let signalled = false;

    // A request in flight at SIGTERM: headers and half its body sent before, the rest after.
    const inFlight = await openRaw(port);
    const half = Math.floor(REVIEW.length / 2);
    inFlight.socket.write(`POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${REVIEW.length}\r\n\r\n${REVIEW.slice(0, half)}`);
    // A keep-alive connection that asked /readyz before SIGTERM, to ask again during the drain.
    const prober = await openRaw(port);
    prober.socket.write('GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await prober.waitFor('"ready":true');

    const clients = Array.from({ length: CLIENTS }, async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const outcomes: Outcome[] = [];
      try {
        while (sent < MAX_REQUESTS) {
          sent++;
          const outcome = await post(server.url, agent);
          outcomes.push(outcome);
          if (outcome.error) break; // the server is gone for this client
          answered++;
          if (answered === SIGTERM_AFTER && !signalled) {
            signalled = true;
            server.child.kill('SIGTERM');
          }
        }
      } finally {
        agent.destroy();
      }
      return outcomes;
    });

    await waitFor('the drain started', () => server.lines.some((l) => l.msg === 'shutting down'));
    prober.socket.write('GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const probe = await prober.waitFor(/"draining":true[^]*$/);
    inFlight.socket.write(REVIEW.slice(half));
    await inFlight.closed;

    const results = await Promise.all(clients);
    const code = await server.exit;

    // The request in flight was answered, and its connection closed after it.
    expect(statusOf(inFlight.received())).toBe(200);
    expect(headerOf(inFlight.received(), 'connection')).toBe('close');
    expect(inFlight.received()).toContain('"uid":"0c7b9c2a-0000-4000-8000-000000000001"');
    // Readiness turned 503 while the drain answered the requests still coming in.
    const second = probe.slice(probe.lastIndexOf('HTTP/1.1 '));
    expect(statusOf(second)).toBe(503);
    expect(headerOf(second, 'connection')).toBe('close');

    const all = results.flat();
    expect(all.filter((o) => o.status === 200).length).toBeGreaterThanOrEqual(SIGTERM_AFTER);
    // The only error a client may see is a refused new connection (nothing was sent on it): no reset,
    // no hang-up, no request lost after it reached the server.
    expect(all.filter((o) => o.error !== undefined && o.error !== 'ECONNREFUSED')).toEqual([]);
    expect(all.every((o) => o.error !== undefined || o.status === 200)).toBe(true);
    // Each client's last answer told it to close its connection.
    for (const outcomes of results) {
      const lastAnswer = outcomes.filter((o) => o.status !== undefined).at(-1);
      expect(lastAnswer?.connection).toBe('close');
    }
    expect(code).toBe(0);
    expect(server.lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
    expect(server.stderr()).toBe('');
  });
});

describe('stop over HTTP/2', () => {
  it('on SIGTERM sends GOAWAY and answers the stream in flight, then exits 0', async () => {
    const pki = makeTestPki();
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key` });
    try {
      const session = h2Connect(`https://localhost:${new URL(server.url).port}`, { ca: pki.ca });
      const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
      const stream = session.request({ ':method': 'POST', ':path': '/mutate', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(REVIEW)) });
      const half = Math.floor(REVIEW.length / 2);
      stream.write(REVIEW.slice(0, half));
      const reply = new Promise<{ status: number; body: string }>((resolve, reject) => {
        let status = 0;
        let body = '';
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.on('data', (d: Buffer) => (body += d.toString()));
        stream.on('end', () => resolve({ status, body }));
        stream.on('error', reject);
      });
      // A later stream answered on the same connection: the server has read the first one's headers.
      await new Promise<void>((resolve, reject) => {
        const probe = session.request({ ':path': '/healthz' });
        probe.on('response', () => resolve());
        probe.on('error', reject);
        probe.resume();
        probe.end();
      });
      server.child.kill('SIGTERM');
      await goaway;
      stream.end(REVIEW.slice(half));
      const answer = await reply;
      expect(answer.status).toBe(200);
      expect(patchOf(JSON.parse(answer.body) as { response?: { patch?: string } }).length).toBeGreaterThan(0);
      session.close();
      expect(await server.exit).toBe(0);
    } finally {
      await server.stop();
      pki.dispose();
    }
  });
});

describe('stop with an HTTP/2 client that does not read', () => {
  it('closes its idle connection once nothing is in flight, as an idle HTTP/1.1 one, rather than wait for the shutdown timeout', async () => {
    const pki = makeTestPki();
    // A grace period far longer than the test may wait: exiting before it means the connection was closed.
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`, AMENDER_SHUTDOWN_TIMEOUT_MS: '300000' });
    const socket = tlsConnect({ port: Number(new URL(server.url).port), host: '127.0.0.1', servername: 'localhost', ca: pki.ca, ALPNProtocols: ['h2'] });
    socket.on('error', () => {});
    try {
      await new Promise((resolve) => socket.once('secureConnect', resolve));
      // The connection preface, SETTINGS and a GET /healthz (END_STREAM | END_HEADERS), written raw; nothing is ever read.
      const frame = (type: number, flags: number, id: number, payload = Buffer.alloc(0)) => {
        const head = Buffer.alloc(9);
        head.writeUIntBE(payload.length, 0, 3);
        head[3] = type;
        head[4] = flags;
        head.writeUInt32BE(id, 5);
        return Buffer.concat([head, payload]);
      };
      const literal = (name: string, value: string) => Buffer.concat([Buffer.from([0, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)]);
      // HPACK: 0x82 is `:method: GET`, 0x87 `:scheme: https` (static table).
      const headers = Buffer.concat([Buffer.from([0x82, 0x87]), literal(':path', '/healthz'), literal(':authority', 'localhost')]);
      socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), frame(4, 0, 0), frame(1, 5, 1, headers)]));
      await waitFor('the request answered', () => server.lines.some((l) => l.msg === 'request' && l.path === '/healthz'));
      server.child.kill('SIGTERM');
      // The deadline only detects the hang: the old drain waited for the client to end the connection, or for the grace period.
      const exit = await Promise.race([server.exit, new Promise((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000))]);
      expect(exit).toBe(0);
      expect(server.lines.map((l) => l.msg)).toContain('stopped');
    } finally {
      socket.destroy();
      await server.stop();
      pki.dispose();
    }
  }, 60_000);
});

describe('stop with pipelined requests', () => {
  it('answers every request an HTTP/1.1 client pipelined before SIGTERM; only the last answer closes the connection', async () => {
    const server = await startReady({});
    try {
      // Reviews heavy enough that the first is still under review at SIGTERM; the three sent in one write.
      const heavy = podReview() as { request: { object: { spec: { containers: unknown[] } } } };
      heavy.request.object.spec.containers = Array.from({ length: 3000 }, (_, i) => ({ name: `c${i}`, image: 'nginx' }));
      const review = JSON.stringify(heavy);
      const one = `POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(review)}\r\n\r\n${review}`;
      const conn = await openRaw(Number(new URL(server.url).port));
      conn.socket.write(one + one + one);
      await new Promise((resolve) => setTimeout(resolve, 100));
      server.child.kill('SIGTERM');
      expect(await conn.closed).toEqual({});
      const heads = [...conn.received().matchAll(/HTTP\/1\.1 (\d+)[^]*?\r\nconnection: (\S+)\r\n/gi)].map((m) => `${m[1]} ${m[2].toLowerCase()}`);
      expect(heads).toEqual(['200 keep-alive', '200 keep-alive', '200 close']);
      expect(await server.stop()).toBe(0);
    } finally {
      if (server.child.exitCode === null) await server.stop();
    }
  });
});

describe('stop with a client stalled in its TLS handshake', () => {
  it('closes the connection once nothing is in flight, rather than wait for the handshake timeout', async () => {
    const pki = makeTestPki();
    // Timeouts far longer than the test may wait: exiting before them means the connection was closed.
    const server = await startBundle({
      AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`,
      AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key`,
      AMENDER_SHUTDOWN_TIMEOUT_MS: '300000',
      AMENDER_REQUEST_TIMEOUT_MS: '300000',
      AMENDER_HEADERS_TIMEOUT_MS: '300000',
    });
    // A TCP connection that starts a ClientHello (a record header announcing 512 bytes) and sends no more.
    const conn = await openRaw(Number(new URL(server.url).port));
    conn.socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]));
    try {
      await waitFor('the server up', () => server.lines.some((l) => l.msg === 'policy sets loaded'));
      server.child.kill('SIGTERM');
      const exit = await Promise.race([server.exit, new Promise((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000))]);
      expect(exit).toBe(0);
      expect(conn.isClosed()).toBe(true);
    } finally {
      conn.socket.destroy();
      await server.stop();
      pki.dispose();
    }
  }, 60_000);
});
