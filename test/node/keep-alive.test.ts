/**
 * An idle HTTP/1.1 keep-alive connection outlives Go's client idle timeout (90 s), so the client (the API
 * server's webhook client, Knative's queue-proxy) always retires it first. Node closed it after 5 s (plain
 * HTTP) or at the socket's idle timeout (over TLS): a client reusing it at that moment got an EOF, which
 * Go never retries for a POST, and the admission failed (knative/serving#12414). The test waits past both
 * of those (shortened by the settings below) and sends a second request on the connection.
 */
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../src/adapters/node.js';
import { ensureBuilt } from './built.js';
import { startBundle, type Running } from './bundle.js';
import { makeTestPki, type TestPki } from './tls.js';

/** Past Node's default keep-alive timeout (5 s) and the socket idle timeout the settings below make (5.1 s). */
const IDLE_MS = 6_500;
const SETTINGS = { AMENDER_WORKERS: '0', AMENDER_HEADERS_TIMEOUT_MS: '1000', AMENDER_REQUEST_TIMEOUT_MS: '2000', AMENDER_REVIEW_DEADLINE_MS: '100' };

let pki: TestPki;
let plain: Running;
let tls: Running;

beforeAll(async () => {
  ensureBuilt();
  pki = makeTestPki();
  [plain, tls] = await Promise.all([
    startBundle(SETTINGS),
    startBundle({ ...SETTINGS, AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key` }),
  ]);
}, 30_000);
afterAll(async () => {
  await Promise.all([plain?.stop(), tls?.stop()]);
  pki?.dispose();
});

/** Two requests on one HTTP/1.1 connection, `IDLE_MS` apart; what the server sent, and whether it closed the connection before the second. */
async function twoRequestsApart(socket: Socket): Promise<{ received: string; closedEarly: boolean }> {
  let received = '';
  let closedAt: number | undefined;
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  socket.on('close', () => (closedAt ??= Date.now()));
  const start = Date.now();
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const closedEarly = closedAt !== undefined;
  if (!closedEarly) socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  const timer = setTimeout(() => socket.destroy(), 5_000);
  await closed;
  clearTimeout(timer);
  return { received, closedEarly: closedEarly || closedAt! - start < IDLE_MS };
}

describe('an idle HTTP/1.1 keep-alive connection', () => {
  it('is kept longer than Go clients keep theirs (90 s), and says so in Keep-Alive', () => {
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(90_000);
  });

  it(
    'serves a second request after an idle time past the old timeouts, over plain HTTP and over TLS',
    async () => {
      const port = (url: string) => Number(new URL(url).port);
      const results = await Promise.all([
        new Promise<Socket>((resolve) => {
          const s = connect(port(plain.url), '127.0.0.1', () => resolve(s));
        }).then(twoRequestsApart),
        new Promise<Socket>((resolve) => {
          const s = connectTls({ port: port(tls.url), host: '127.0.0.1', ca: pki.ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => resolve(s));
        }).then(twoRequestsApart),
      ]);
      for (const { received, closedEarly } of results) {
        expect(closedEarly).toBe(false);
        expect(received.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
        expect(received).toContain(`Keep-Alive: timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
      }
    },
    20_000,
  );
});
