/**
 * A review whose client goes away before its answer is counted as `abandoned` (logged with status 499,
 * nginx's "client closed request"), not as an invalid review or a refusal: a client that resets its
 * connection halfway through a body (the API server giving up on a slow network) must not raise the
 * alarms that `invalid` (400) or `unavailable` (503) are for. Through the app on the real Node adapter,
 * over HTTP/1.1 and HTTP/2 with TLS. Loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, constants } from 'node:http2';
import { readFileSync } from 'node:fs';
import { bundledPolicies, startTestServer, type TestServer } from './helpers.js';
import { openRaw } from '../reliability/raw-http.js';
import { makeTestPki, type TestPki } from '../node/tls.js';

const review = readFileSync(new URL('../fixtures/reviews/pod-create.json', import.meta.url), 'utf8');

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('not seen in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function requestLines(server: TestServer) {
  return server.logs.filter((r) => r.msg === 'request' && r.path === '/mutate');
}

async function reviewCounts(server: TestServer): Promise<string[]> {
  const text = await (await fetch(`http://127.0.0.1:${server.server.port}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith('amender_reviews_total{'));
}

describe('a review whose client goes away halfway through its body', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ policies: await bundledPolicies() });
  });
  afterAll(() => server?.close());

  it('over HTTP/1.1 is counted abandoned and logged 499', async () => {
    const conn = await openRaw(server.server.port);
    const length = Buffer.byteLength(review);
    conn.socket.write(`POST /mutate HTTP/1.1\r\nHost: amender\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
    conn.socket.write(review.slice(0, 200));
    // The server is reading the body when the connection goes.
    await new Promise((r) => setTimeout(r, 100));
    conn.socket.resetAndDestroy();
    await until(() => requestLines(server).length === 1);
    const [line] = requestLines(server);
    expect(line.status).toBe(499);
    expect(line.outcome).toBe('abandoned');
    expect(await reviewCounts(server)).toEqual(['amender_reviews_total{outcome="abandoned"} 1']);
  });
});

describe('a review whose client resets its HTTP/2 stream halfway through its body', () => {
  let pki: TestPki;
  let server: TestServer;
  beforeAll(async () => {
    pki = makeTestPki();
    server = await startTestServer({ policies: await bundledPolicies() }, pki);
  });
  afterAll(async () => {
    await server?.close();
    pki?.dispose();
  });

  it('is counted abandoned and logged 499', async () => {
    const session = connect(`https://localhost:${server.server.port}`, { ca: pki.ca });
    session.on('error', () => {});
    const stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: '/mutate',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(review)),
    });
    stream.on('error', () => {});
    stream.write(review.slice(0, 200));
    await new Promise((r) => setTimeout(r, 100));
    stream.close(constants.NGHTTP2_CANCEL);
    await until(() => requestLines(server).length === 1);
    session.destroy();
    const [line] = requestLines(server);
    expect(line.status).toBe(499);
    expect(line.outcome).toBe('abandoned');
    const text = await new Promise<string>((resolve, reject) => {
      const s = connect(`https://localhost:${server.server.port}`, { ca: pki.ca });
      s.on('error', reject);
      const r = s.request({ [constants.HTTP2_HEADER_PATH]: '/metrics' });
      let body = '';
      r.on('data', (c: Buffer) => (body += c));
      r.on('end', () => {
        s.close();
        resolve(body);
      });
    });
    expect(text.split('\n').filter((l) => l.startsWith('amender_reviews_total{'))).toEqual(['amender_reviews_total{outcome="abandoned"} 1']);
  });
});

describe('a review cancelled while it is evaluated (its client went away)', () => {
  it('is answered abandoned, without the stopped policies as outcomes to count or log', async () => {
    const { answerReviewText } = await import('../../src/server/index.js');
    const provider = await bundledPolicies();
    const state = provider();
    const answer = await answerReviewText(review, state.set, 100, { signal: { aborted: true } });
    expect(answer.status).toBe(499);
    expect(answer.outcome).toBe('abandoned');
    expect('outcomes' in answer).toBe(false);
    expect(answer.uid).toBe(JSON.parse(review).request.uid);
  });
});
