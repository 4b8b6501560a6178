/**
 * AMENDER_BASE_PATH on the built Node server: an ingress or gateway that routes `/amender/…` to Amender
 * without rewriting the path. A path that starts with the prefix (whole segments) is served without it,
 * over HTTP/1.1 and HTTP/2 alike; any other path as it is (probes that call /healthz directly); a value
 * that is no path prefix stops the start with the variable named.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h1Request, h2Request } from './clients.js';
import { ROOT, SERVER_BUNDLE, ensureBuilt } from './built.js';
import { startBundle, type Running } from './bundle.js';
import { makeTestPki, type TestPki } from './tls.js';

const REVIEW = readFileSync(`${ROOT}test/fixtures/reviews/pod-create.json`, 'utf8');
const JSON_HEADERS = { 'content-type': 'application/json' };

/** The status line's code of a raw HTTP/1.1 exchange (the target sent exactly as given, which clients normalize). */
function rawStatus(url: string, target: string, method = 'GET'): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${method} ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`));
    let head = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (d: Buffer) => (head += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (match) resolve(Number(match[1]));
      else reject(new Error(`no status line in ${JSON.stringify(head.slice(0, 80))}`));
    });
  });
}

let pki: TestPki;
let server: Running;
beforeAll(async () => {
  ensureBuilt();
  pki = makeTestPki();
  server = await startBundle({ AMENDER_BASE_PATH: '/amender', AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key` });
});
afterAll(async () => {
  await server?.stop();
  pki?.dispose();
});

describe('AMENDER_BASE_PATH on the Node server', () => {
  it('serves a review under the prefix exactly as without it, over HTTP/1.1 and HTTP/2', async () => {
    const plain = await h1Request(`${server.url}/mutate`, { body: REVIEW, headers: JSON_HEADERS, ca: pki.ca });
    expect(plain.status).toBe(200);
    expect(JSON.parse(plain.body).response.patch).toBeDefined();
    const prefixed = await h1Request(`${server.url}/amender/mutate`, { body: REVIEW, headers: JSON_HEADERS, ca: pki.ca });
    expect(prefixed.status).toBe(200);
    expect(prefixed.body).toBe(plain.body);
    const origin = `https://localhost:${new URL(server.url).port}`;
    const overH2 = await h2Request(origin, '/amender/mutate', pki.ca, { body: REVIEW, headers: JSON_HEADERS });
    expect(overH2.alpn).toBe('h2');
    expect(overH2.status).toBe(200);
    expect(overH2.body).toBe(plain.body);
  });

  it('serves every route under the prefix, and the same paths without it', async () => {
    for (const path of ['/healthz', '/amender/healthz', '/readyz', '/amender/readyz?verbose=1', '/metrics', '/amender/metrics']) {
      const reply = await h1Request(`${server.url}${path}`, { method: 'GET', ca: pki.ca });
      expect(reply.status, path).toBe(200);
    }
    const metrics = await h1Request(`${server.url}/amender/metrics`, { method: 'GET', ca: pki.ca });
    expect(metrics.body).toContain('amender_http_requests_total');
  });

  it('takes off whole segments only: /amenders and a prefix elsewhere in the path are not it', async () => {
    expect((await h1Request(`${server.url}/amenders/mutate`, { body: REVIEW, headers: JSON_HEADERS, ca: pki.ca })).status).toBe(404);
    expect((await h1Request(`${server.url}/x/amender/healthz`, { method: 'GET', ca: pki.ca })).status).toBe(404);
    expect((await h1Request(`${server.url}/amender/amender/healthz`, { method: 'GET', ca: pki.ca })).status).toBe(404);
  });

  it('reads the prefix after dot segments are resolved, as a URL parser would', async () => {
    // Plain HTTP is not what this server speaks (TLS): a second server without TLS for the raw targets.
    const raw = await startBundle({ AMENDER_BASE_PATH: '/amender' });
    try {
      expect(await rawStatus(raw.url, '/x/../amender/healthz')).toBe(200);
      expect(await rawStatus(raw.url, '/amender/./healthz')).toBe(200);
      expect(await rawStatus(raw.url, '/amender/../healthz')).toBe(200);
      expect(await rawStatus(raw.url, `http://${new URL(raw.url).host}/amender/healthz`)).toBe(200);
      expect(await rawStatus(raw.url, '/amender/x/../../amender/readyz')).toBe(200);
      expect(await rawStatus(raw.url, '/amender/x/../nothing')).toBe(404);
    } finally {
      await raw.stop();
    }
  });

  it('logs the request under the path the app served', async () => {
    await h1Request(`${server.url}/amender/readyz`, { method: 'GET', ca: pki.ca });
    const logged = server.lines.filter((l) => l.msg === 'request').map((l) => l.path);
    expect(logged).toContain('/readyz');
    expect(logged).not.toContain('/amender/readyz');
  });
});

describe('a value of AMENDER_BASE_PATH that is no path prefix', () => {
  for (const bad of ['amender', '/amender/', '/']) {
    it(`stops the start: ${JSON.stringify(bad)}`, async () => {
      const child = spawn(process.execPath, [SERVER_BUNDLE], { env: { PATH: process.env.PATH ?? '', PORT: '0', AMENDER_HOST: '127.0.0.1', AMENDER_BASE_PATH: bad }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      expect(await new Promise((r) => child.once('exit', r))).toBe(2);
      expect(stderr).toContain('amender: invalid configuration:');
      expect(stderr).toMatch(/AMENDER_BASE_PATH: expected a path prefix/);
    });
  }
});
