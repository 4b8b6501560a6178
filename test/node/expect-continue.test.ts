/**
 * `Expect: 100-continue` (curl adds it to bodies over 1 MiB): the Node server sends `100 Continue` only
 * when the app reads the body, so a request answered without it (413 by its Content-Length, 404, 401)
 * never invites a body its client would send for nothing; over HTTP/1.1 that answer closes the
 * connection, whose next request could otherwise start inside a body that may still come. Through the
 * app with the bundled policies on the real adapter, over HTTP/1.1 and HTTP/2 with TLS. Loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, constants } from 'node:http2';
import { readFileSync } from 'node:fs';
import { bundledPolicies, reviewOf, startTestServer, type TestServer } from '../server/helpers.js';
import { headerOf, openRaw, statusOf } from '../reliability/raw-http.js';
import { makeTestPki, type TestPki } from './tls.js';

const pod = JSON.parse(readFileSync(new URL('../fixtures/reviews/pod-create.json', import.meta.url), 'utf8')).request.object;
const review = JSON.stringify(reviewOf(pod));
const MAX_BODY = 64 * 1024;

/** The request's head, its body sent only once `100 Continue` arrives; everything received by the end. */
async function exchange(port: number, path: string, contentLength: number, body: string): Promise<{ reply: string; closed: boolean }> {
  const conn = await openRaw(port);
  conn.socket.write(`POST ${path} HTTP/1.1\r\nHost: amender\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\nExpect: 100-continue\r\n\r\n`);
  const first = await conn.waitFor(/HTTP\/1\.1 \d{3} /);
  if (first.startsWith('HTTP/1.1 100 ')) conn.socket.write(body);
  const reply = await conn.waitFor(/HTTP\/1\.1 [2-5]\d\d [^]*\r\n\r\n[^]*\}/);
  const closed = await Promise.race([conn.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 500))]);
  conn.socket.destroy();
  return { reply, closed };
}

describe('Expect: 100-continue over HTTP/1.1', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ policies: await bundledPolicies(), limits: { maxBodyBytes: MAX_BODY } });
  });
  afterAll(() => server?.close());

  it('a review gets 100 Continue, then its answer, and the connection stays open', async () => {
    const { reply, closed } = await exchange(server.server.port, '/mutate', Buffer.byteLength(review), review);
    expect(reply.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 ')).toBe(true);
    expect(reply).toContain('"patchType":"JSONPatch"');
    expect(closed).toBe(false);
  });

  it('a body declared over the limit is answered 413 without 100 Continue, and the connection closes', async () => {
    const { reply, closed } = await exchange(server.server.port, '/mutate', MAX_BODY + 1, review);
    expect(statusOf(reply)).toBe(413);
    expect(reply).not.toContain('100 Continue');
    expect(headerOf(reply, 'connection')).toBe('close');
    expect(closed).toBe(true);
  });

  it('an unknown route is answered 404 without 100 Continue', async () => {
    const { reply, closed } = await exchange(server.server.port, '/nowhere', Buffer.byteLength(review), review);
    expect(statusOf(reply)).toBe(404);
    expect(reply).not.toContain('100 Continue');
    expect(closed).toBe(true);
  });
});

describe('Expect: 100-continue over HTTP/2', () => {
  let pki: TestPki;
  let server: TestServer;
  beforeAll(async () => {
    pki = makeTestPki();
    server = await startTestServer({ policies: await bundledPolicies(), limits: { maxBodyBytes: MAX_BODY } }, pki);
  });
  afterAll(async () => {
    await server?.close();
    pki?.dispose();
  });

  /** Node's client sends the body on the stream's 'continue' event, as Go's does on a 100. */
  function h2Exchange(contentLength: number): Promise<{ status: number; continued: boolean; body: string }> {
    return new Promise((resolve, reject) => {
      const session = connect(`https://localhost:${server.server.port}`, { ca: pki.ca });
      session.on('error', reject);
      const req = session.request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: '/mutate',
        'content-type': 'application/json',
        'content-length': String(contentLength),
        expect: '100-continue',
      });
      let continued = false;
      let status = 0;
      const chunks: Buffer[] = [];
      req.on('continue', () => {
        continued = true;
        req.end(review);
      });
      req.on('response', (headers) => (status = Number(headers[constants.HTTP2_HEADER_STATUS])));
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('close', () => {
        session.close();
        resolve({ status, continued, body: Buffer.concat(chunks).toString() });
      });
      req.on('error', reject);
    });
  }

  it('a review gets 100 Continue, then its answer', async () => {
    const reply = await h2Exchange(Buffer.byteLength(review));
    expect(reply.continued).toBe(true);
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('"patchType":"JSONPatch"');
  });

  it('a body declared over the limit is answered 413 without 100 Continue', async () => {
    const reply = await h2Exchange(MAX_BODY + 1);
    expect(reply.continued).toBe(false);
    expect(reply.status).toBe(413);
  });
});
