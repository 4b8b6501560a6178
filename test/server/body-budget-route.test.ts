/**
 * The body budget on the mutate route, through the real Node adapter on loopback (HTTP/1.1, and HTTP/2
 * over TLS as the API server calls): a review whose body would pass the budget waits, unread, until the
 * reviews before it are answered, its wait counted against its deadline; one that waits as long as its
 * review could run is answered 503; a body of unknown length holds the most a body may be while it is
 * read, then its size; a body still arriving after a second stops being counted until it is in. The reviewer is the in-process one behind a gate, so the test decides when a
 * review ends.
 */
import { connect, constants } from 'node:http2';
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BodyBudget, createApp, inProcessReviewer, type AppOptions, type ReviewJob } from '../../src/server/index.js';
import { startNodeServer, type RunningServer } from '../../src/adapters/node.js';
import { makeTestPki, type TestPki } from '../node/tls.js';
import { refresherState, labelPolicy } from '../reliability/helpers/label-policy.js';
import { reviewOf } from './helpers.js';
import { openRaw, statusOf } from '../reliability/raw-http.js';

const KiB = 1024;
const state = refresherState(labelPolicy('budget', 'budget', 1));

/** A Pod review of about `size` bytes (an annotation pads it), with its own uid. */
function reviewOfSize(size: number, uid: string): string {
  const review = reviewOf({ apiVersion: 'v1', kind: 'Pod', metadata: { name: uid, namespace: 'default', annotations: { pad: 'x'.repeat(size) } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
  (review.request as { uid: string }).uid = uid;
  return JSON.stringify(review);
}

/** A reviewer that holds every review until `open()`, recording what it was given. */
function gatedReviewer() {
  const jobs: ReviewJob[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    jobs,
    open,
    reviewer: async (job: ReviewJob) => {
      jobs.push(job);
      await gate;
      return inProcessReviewer(job);
    },
  };
}

let servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(options: Partial<AppOptions>, tls?: { cert: string; key: string }) {
  const amender = createApp({ policies: () => state, ...options });
  const server = await startNodeServer({ fetch: amender.app.fetch, port: 0, host: '127.0.0.1', tls });
  // As the Node server's main does: a reply nobody takes makes room for a review waiting.
  options.bodyBudget?.relieveWith(() => server.endStalledAnswer());
  servers.push(server);
  const metric = async (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(amender.metrics.registry.render())?.[1]);
  return { url: server.url, metric };
}

function post(url: string, body: string) {
  return fetch(`${url}/mutate`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the body budget on /mutate', () => {
  it('holds a review, unread, while the budget is full, and answers it once room is given back', { timeout: 30_000 }, async () => {
    const gate = gatedReviewer();
    const { url, metric } = await serve({ reviewer: gate.reviewer, bodyBudget: new BodyBudget(840 * KiB) });
    const replies = ['a', 'b', 'c'].map((uid) => post(url, reviewOfSize(300 * KiB, uid)));
    await until('two reviews under review and one waiting', async () => gate.jobs.length === 2 && (await metric('amender_requests_waiting_for_body_budget')) === 1);
    expect(await metric('amender_request_body_bytes_held')).toBeGreaterThan(600 * KiB);
    gate.open();
    const answered = await Promise.all(replies);
    for (const reply of answered) {
      expect(reply.status).toBe(200);
      expect(((await reply.json()) as { response: unknown }).response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    }
    expect(gate.jobs).toHaveLength(3);
    expect(await metric('amender_request_body_bytes_held')).toBe(0);
    expect(await metric('amender_requests_refused_body_budget_total')).toBe(0);
  });

  // With the API server's ?timeout= too (long enough not to shorten it): the timeout only ever shortens
  // the deadline, which still runs from the review's arrival.
  for (const query of ['', '?timeout=30s']) {
    it(`counts the wait against the review's deadline (${query || 'no timeout'})`, { timeout: 30_000 }, async () => {
      const gate = gatedReviewer();
      const { url } = await serve({ reviewer: gate.reviewer, bodyBudget: new BodyBudget(400 * KiB), limits: { reviewDeadlineMs: 20_000 } });
      const first = post(url, reviewOfSize(300 * KiB, 'first'));
      await until('the first under review', () => gate.jobs.length === 1);
      const second = fetch(`${url}/mutate${query}`, { method: 'POST', body: reviewOfSize(300 * KiB, 'second'), headers: { 'content-type': 'application/json' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      gate.open();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      expect(gate.jobs[0].limits.reviewDeadlineMs).toBe(20_000);
      expect(gate.jobs[1].limits.reviewDeadlineMs).toBeLessThanOrEqual(20_000 - 250);
    });
  }

  it('answers 503 a review that waited as long as its review could run, and the others as usual', { timeout: 30_000 }, async () => {
    const gate = gatedReviewer();
    const { url, metric } = await serve({ reviewer: gate.reviewer, bodyBudget: new BodyBudget(400 * KiB), limits: { reviewDeadlineMs: 300 } });
    const first = post(url, reviewOfSize(300 * KiB, 'first'));
    await until('the first under review', () => gate.jobs.length === 1);
    const refused = await post(url, reviewOfSize(300 * KiB, 'second'));
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { message: string }).message).toMatch(/budget of 0\.4 MiB of request bodies.*waited 300 ms/);
    expect(await metric('amender_requests_refused_body_budget_total')).toBe(1);
    gate.open();
    expect((await first).status).toBe(200);
    expect(gate.jobs).toHaveLength(1);
  });

  it('answers 503 at once a review when as many as the budget allows wait already', { timeout: 30_000 }, async () => {
    const gate = gatedReviewer();
    const { url, metric } = await serve({ reviewer: gate.reviewer, bodyBudget: new BodyBudget(400 * KiB, 1) });
    const first = post(url, reviewOfSize(300 * KiB, 'first'));
    await until('the first under review', () => gate.jobs.length === 1);
    const second = post(url, reviewOfSize(300 * KiB, 'second'));
    await until('the second waiting', async () => (await metric('amender_requests_waiting_for_body_budget')) === 1);
    const refused = await post(url, reviewOfSize(300 * KiB, 'third'));
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { message: string }).message).toMatch(/budget of 0\.4 MiB of request bodies.*another review waits for room already/);
    expect(await metric('amender_requests_refused_body_budget_total')).toBe(1);
    gate.open();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(gate.jobs.map((job) => JSON.parse(typeof job.body === 'string' ? job.body : Buffer.from(job.body).toString()).request.uid)).toEqual(['first', 'second']);
  });

  it('holds the most a body may be while a body of unknown length is read, then its size', { timeout: 30_000 }, async () => {
    const gate = gatedReviewer();
    const { url, metric } = await serve({ reviewer: gate.reviewer, bodyBudget: new BodyBudget(1024 * KiB), limits: { maxBodyBytes: 600 * KiB } });
    const body = reviewOfSize(100 * KiB, 'chunked');
    const reply = new Promise<number>((resolve, reject) => {
      // No Content-Length: Node's client sends the body chunked.
      const req = httpRequest(`${url}/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.write(body.slice(0, 1000));
      setTimeout(() => req.end(body.slice(1000)), 100);
    });
    await until('the chunked review under review', () => gate.jobs.length === 1);
    expect(await metric('amender_request_body_bytes_held')).toBe(Buffer.byteLength(body));
    // Room for another body up to the limit: 100 + 600 KiB fit in 1024.
    const second = post(url, reviewOfSize(500 * KiB, 'second'));
    await until('both under review', () => gate.jobs.length === 2);
    gate.open();
    expect(await reply).toBe(200);
    expect((await second).status).toBe(200);
  });

  it('serves a small review at once while declared large bodies that never arrive hold the rest of the budget', { timeout: 30_000 }, async () => {
    const gate = gatedReviewer();
    gate.open();
    const { url, metric } = await serve({ reviewer: gate.reviewer, bodyBudget: new BodyBudget(4096 * KiB) });
    // Four requests declare 1 MiB bodies and send nothing: three quarters of the budget, the large share, and one waits.
    const stalled = await Promise.all(Array.from({ length: 4 }, () => openRaw(Number(new URL(url).port))));
    for (const conn of stalled) conn.socket.write(`POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${1024 * KiB}\r\n\r\n`);
    await until('three held and one waiting', async () => (await metric('amender_request_body_bytes_held')) === 3 * 1024 * KiB && (await metric('amender_requests_waiting_for_body_budget')) === 1);
    // A review of a few KiB, as the API server sends: answered from the quarter kept for small bodies,
    // before the stalled ones stop being counted (a second after their reading began).
    const reply = await post(url, reviewOfSize(2 * KiB, 'small'));
    expect(reply.status).toBe(200);
    expect(await metric('amender_request_body_bytes_held')).toBeGreaterThanOrEqual(3 * 1024 * KiB);
    expect(await metric('amender_requests_refused_body_budget_total')).toBe(0);
    for (const conn of stalled) conn.socket.destroy();
  });

  it('stops counting a body still arriving after a second, so a client trickling large bodies holds no one up', { timeout: 30_000 }, async () => {
    const gate = gatedReviewer();
    gate.open();
    const { url, metric } = await serve({ reviewer: gate.reviewer, bodyBudget: new BodyBudget(700 * KiB) });
    // Declares 600 KiB, sends 1 KiB of it, and waits.
    const trickled = Buffer.from(reviewOfSize(600 * KiB, 'trickled'));
    const conn = await openRaw(Number(new URL(url).port));
    conn.socket.write(`POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${trickled.length}\r\nConnection: close\r\n\r\n`);
    conn.socket.write(trickled.subarray(0, 1024));
    await until('the trickled body counted', async () => (await metric('amender_request_body_bytes_held')) === trickled.length);
    // 300 KiB more would pass the budget: this review waits, until the trickled body stops being counted.
    const reply = await post(url, reviewOfSize(300 * KiB, 'prompt'));
    expect(reply.status).toBe(200);
    expect(gate.jobs).toHaveLength(1);
    expect(await metric('amender_request_body_bytes_held')).toBe(0);
    // The rest comes: the trickled review is answered, and held its size while it was reviewed.
    conn.socket.write(trickled.subarray(1024));
    await conn.closed;
    expect(statusOf(conn.received())).toBe(200);
    expect(gate.jobs).toHaveLength(2);
    expect(await metric('amender_request_body_bytes_held')).toBe(0);
  });

  it('at the cap of requests in flight, ends the HTTP/1.1 connection of the oldest request whose body is slow, to serve a new one', { timeout: 30_000 }, async () => {
    const amender = createApp({ policies: () => state, bodyBudget: new BodyBudget(1024 * KiB) });
    const server = await startNodeServer({ fetch: amender.app.fetch, port: 0, host: '127.0.0.1', maxRequests: 2 });
    servers.push(server);
    const body = reviewOfSize(10 * KiB, 'slow');
    const head = `POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const oldest = await openRaw(server.port);
    oldest.socket.write(head + body.slice(0, 100));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const younger = await openRaw(server.port);
    younger.socket.write(head + body.slice(0, 100));
    // Both bodies become slow after a second of reading; the cap (2) is reached.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(server.inFlight()).toBe(2);
    const reply = await post(server.url, reviewOfSize(10 * KiB, 'prompt'));
    expect(reply.status).toBe(200);
    await reply.text();
    await oldest.closed;
    expect(oldest.received()).toBe('');
    expect(younger.isClosed()).toBe(false);
    younger.socket.write(body.slice(100));
    await until('the younger answered', () => statusOf(younger.received()) === 200);
    younger.socket.destroy();
  });

  /** The in-process review's reply, with a warning of `size` bytes: a reply larger than loopback's socket buffers take. */
  function bigReplyReviewer(size: number) {
    return async (job: ReviewJob) => {
      const answer = await inProcessReviewer(job);
      const text = JSON.stringify(answer.body).replace('"allowed":true', `"warnings":["${'w'.repeat(size)}"],"allowed":true`);
      return { ...answer, bodyText: text };
    };
  }

  /** Sends a review on a raw connection and stops reading it: the server's answer waits in its buffers. */
  async function postUnread(url: string, body: string) {
    const conn = await openRaw(Number(new URL(url).port));
    conn.socket.write(`POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    conn.socket.pause();
    return conn;
  }

  /** True once `received` holds a whole HTTP/1.1 reply with a Content-Length. */
  function wholeReplyIn(received: string): boolean {
    const headEnd = received.indexOf('\r\n\r\n');
    if (headEnd < 0) return false;
    const length = /content-length: (\d+)/i.exec(received.slice(0, headEnd));
    return length !== null && received.length - headEnd - 4 >= Number(length[1]);
  }

  it('ends a reply its client has taken nothing of for a second when a review waits for its room', { timeout: 30_000 }, async () => {
    const MiB = 1024 * KiB;
    const { url, metric } = await serve({ reviewer: bigReplyReviewer(16 * MiB), bodyBudget: new BodyBudget(MiB) });
    const unread = await postUnread(url, reviewOfSize(10 * KiB, 'unread'));
    await until('the reply counted', async () => (await metric('amender_request_body_bytes_held')) > 16 * MiB);
    // A second on, nothing more of the reply moves: the client takes nothing.
    await new Promise((resolve) => setTimeout(resolve, 1300));
    const next = await post(url, reviewOfSize(10 * KiB, 'next'));
    expect(next.status).toBe(200);
    await next.text();
    // The stalled reply's connection was closed: its client, reading again, finds the reply cut short.
    unread.socket.resume();
    await unread.closed;
    expect(wholeReplyIn(unread.received())).toBe(false);
    await until('the room given back', async () => (await metric('amender_request_body_bytes_held')) === 0);
  });

  it("holds a reply's bytes until the client has taken it, and reviews behind wait for that", { timeout: 30_000 }, async () => {
    const MiB = 1024 * KiB;
    const { url, metric } = await serve({ reviewer: bigReplyReviewer(16 * MiB), bodyBudget: new BodyBudget(MiB) });
    const unread = await postUnread(url, reviewOfSize(10 * KiB, 'unread'));
    await until('the reply counted', async () => (await metric('amender_request_body_bytes_held')) > 16 * MiB);
    // Its body's bytes became its reply's; the next review waits for room, unread.
    const next = post(url, reviewOfSize(10 * KiB, 'next'));
    await until('the next review waiting', async () => (await metric('amender_requests_waiting_for_body_budget')) === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await metric('amender_requests_waiting_for_body_budget')).toBe(1);
    // The client reads its reply: the room is given back, the next review is answered.
    unread.socket.resume();
    await until('the whole reply read', () => wholeReplyIn(unread.received()));
    expect(statusOf(unread.received())).toBe(200);
    const nextReply = await next;
    expect(nextReply.status).toBe(200);
    await nextReply.text();
    await until('nothing held', async () => (await metric('amender_request_body_bytes_held')) === 0);
  });

  it('gives back the bytes of a reply whose client left without reading it, and of a review whose client left before its answer', { timeout: 30_000 }, async () => {
    const MiB = 1024 * KiB;
    const gate = gatedReviewer();
    const big = bigReplyReviewer(16 * MiB);
    const reviewer = async (job: ReviewJob) => {
      await gate.reviewer(job);
      return big(job);
    };
    const { url, metric } = await serve({ reviewer, bodyBudget: new BodyBudget(MiB) });
    const left = await postUnread(url, reviewOfSize(10 * KiB, 'left-early'));
    await until('the first under review', () => gate.jobs.length === 1);
    left.socket.destroy();
    gate.open();
    await until('nothing held once the first is answered', async () => gate.jobs.length === 1 && (await metric('amender_request_body_bytes_held')) === 0);
    const unread = await postUnread(url, reviewOfSize(10 * KiB, 'unread'));
    await until('the reply counted', async () => (await metric('amender_request_body_bytes_held')) > 16 * MiB);
    unread.socket.destroy();
    await until('nothing held once its client left', async () => (await metric('amender_request_body_bytes_held')) === 0);
    const after = await post(url, reviewOfSize(10 * KiB, 'after'));
    expect(after.status).toBe(200);
    await after.text();
  });

  describe('over HTTP/2, as the API server calls', () => {
    let pki: TestPki;
    beforeAll(() => {
      pki = makeTestPki();
    });
    afterAll(() => pki.dispose());

    it('answers every stream of one connection, those waiting unread holding up neither the others nor the connection', { timeout: 30_000 }, async () => {
      const gate = gatedReviewer();
      const { url, metric } = await serve({ reviewer: gate.reviewer, bodyBudget: new BodyBudget(840 * KiB) }, { cert: pki.cert, key: pki.key });
      const session = connect(`https://localhost:${new URL(url).port}`, { ca: pki.ca });
      try {
        // Each body is larger than a stream's flow-control window (64 KiB): one left unread would stall the
        // connection if the server did not hand the connection's window back as bytes arrive.
        const replies = Array.from({ length: 6 }, (_, i) => {
          const body = reviewOfSize(300 * KiB, `h2-${i}`);
          // As the API server's Go client does: the length is declared.
          const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: '/mutate', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
          return new Promise<{ status: number; body: string }>((resolve, reject) => {
            let status = 0;
            let text = '';
            stream.setEncoding('utf8');
            stream.on('response', (headers) => (status = Number(headers[constants.HTTP2_HEADER_STATUS])));
            stream.on('data', (chunk: string) => (text += chunk));
            stream.on('end', () => resolve({ status, body: text }));
            stream.on('error', reject);
            stream.end(body);
          });
        });
        await until('two under review and four waiting', async () => gate.jobs.length === 2 && (await metric('amender_requests_waiting_for_body_budget')) === 4);
        gate.open();
        const answered = await Promise.all(replies);
        for (const [i, reply] of answered.entries()) {
          expect(reply.status).toBe(200);
          expect(JSON.parse(reply.body).response).toMatchObject({ uid: `h2-${i}`, allowed: true });
        }
      } finally {
        session.close();
      }
    });

    it("holds a stream's reply until the client has read it", { timeout: 30_000 }, async () => {
      const MiB = 1024 * KiB;
      const { url, metric } = await serve({ reviewer: bigReplyReviewer(4 * MiB), bodyBudget: new BodyBudget(MiB) }, { cert: pki.cert, key: pki.key });
      const session = connect(`https://localhost:${new URL(url).port}`, { ca: pki.ca });
      try {
        const body = reviewOfSize(10 * KiB, 'h2-unread');
        const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: '/mutate', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
        stream.end(body);
        // Not read: the stream's flow-control window keeps all but 64 KiB of the reply with the server.
        stream.pause();
        await until('the reply counted', async () => (await metric('amender_request_body_bytes_held')) > 4 * MiB);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await metric('amender_request_body_bytes_held')).toBeGreaterThan(4 * MiB);
        let length = 0;
        stream.on('data', (chunk: Buffer) => (length += chunk.length));
        const ended = new Promise((resolve) => stream.on('end', resolve));
        stream.resume();
        await ended;
        expect(length).toBeGreaterThan(4 * MiB);
        await until('nothing held', async () => (await metric('amender_request_body_bytes_held')) === 0);
      } finally {
        session.close();
      }
    });
  });
});
