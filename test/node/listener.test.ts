/**
 * What the Node server's listener (src/adapters/node-listener.ts, node-request.ts, node-request-url.ts)
 * hands the fetch handler and writes back, through startNodeServer: request URLs, bodies read whole or as
 * a stream and at most once, the signal when a client leaves, HEAD, several Set-Cookie fields, a streamed
 * Response, and HTTP/2's rules for connection-specific fields. Loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeServer, type BadRequest, type RunningServer } from '../../src/adapters/node.js';
import type { ClientSignalRequest, HeldBodyRequest } from '../../src/server/index.js';
import { h1Request, h2Request } from './clients.js';
import { makeTestPki, type TestPki } from './tls.js';
import { headerOf, openRaw, rawExchange, statusOf } from '../reliability/raw-http.js';

/** Handlers by path; every request's URL is recorded. */
function routes() {
  const urls: string[] = [];
  let aborted!: (reason: unknown) => void;
  const abortSeen = new Promise<unknown>((r) => (aborted = r));
  let lightAborted!: (aborted: boolean) => void;
  const lightAbortSeen = new Promise<boolean>((r) => (lightAborted = r));
  let lightWaiting!: () => void;
  const lightWaitingStarted = new Promise<void>((r) => (lightWaiting = r));
  let waiting!: () => void;
  const waitingStarted = new Promise<void>((r) => (waiting = r));
  const fetch = async (req: Request): Promise<Response> => {
    urls.push(req.url);
    const path = new URL(req.url).pathname;
    if (path === '/twice') {
      const first = await req.text();
      const second = await req.text().then(
        () => 'read again',
        (err: Error) => `${err.name}: used ${req.bodyUsed}`,
      );
      return Response.json({ first, second });
    }
    if (path === '/peek') {
      const hasBody = req.body !== null;
      return Response.json({ hasBody, text: await req.text(), used: req.bodyUsed });
    }
    if (path === '/stream') {
      const reader = req.body!.getReader();
      const chunks: string[] = [];
      const decoder = new TextDecoder();
      for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(decoder.decode(r.value, { stream: true }));
      return Response.json({ text: chunks.join(''), used: req.bodyUsed });
    }
    if (path === '/wait') {
      req.signal.addEventListener('abort', () => aborted(req.signal.reason));
      waiting();
      await abortSeen;
      return new Response('too late');
    }
    if (path === '/held') {
      // As src/server/body.ts asks: after a microtask, the body that came with the head is here.
      await null;
      const held = (req as Request & Partial<HeldBodyRequest>).takeBodyBytes!(Number(req.headers.get('content-length')));
      const text = held === undefined ? await req.text() : new TextDecoder().decode(held);
      return Response.json({ held: held !== undefined, text, used: req.bodyUsed });
    }
    if (path === '/wait-light') {
      // The review route's way (src/server/client-signal.ts): no AbortSignal is made.
      const signal = (req as Request & Partial<ClientSignalRequest>).clientSignal!;
      signal.addEventListener('abort', () => lightAborted(signal.aborted));
      lightWaiting();
      await lightAbortSeen;
      return new Response('too late');
    }
    if (path === '/cookies') {
      const headers = new Headers([
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['x-kind', 'cookies'],
      ]);
      return new Response('ok', { headers });
    }
    if (path === '/streamed') {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('part one, '));
          controller.enqueue(new TextEncoder().encode('part two'));
          controller.close();
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/plain' } });
    }
    if (path === '/hop') return new Response('hop', { headers: { connection: 'close', 'keep-alive': 'timeout=5', 'x-kept': 'yes' } });
    return Response.json({ method: req.method, body: req.method === 'GET' || req.method === 'HEAD' ? null : await req.text(), headers: Object.fromEntries(req.headers) });
  };
  return { fetch, urls, abortSeen, lightAbortSeen, waitingStarted, lightWaitingStarted };
}

describe('the Node listener over HTTP/1.1', () => {
  let server: RunningServer;
  let h: ReturnType<typeof routes>;
  const bad: BadRequest[] = [];
  beforeAll(async () => {
    h = routes();
    server = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1', onBadRequest: (r) => bad.push(r) });
  });
  afterAll(() => server.close());

  it('builds the request URL from Host and target; an absolute target is taken as it is', async () => {
    await rawExchange(server.port, 'GET /a/b?c=d HTTP/1.1\r\nHost: example.test:8080\r\nConnection: close\r\n\r\n');
    await rawExchange(server.port, 'GET /x/../y/./z HTTP/1.1\r\nHost: Example.TEST\r\nConnection: close\r\n\r\n');
    await rawExchange(server.port, 'GET http://other.test/abs?q=1 HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n');
    await rawExchange(server.port, 'GET /old HTTP/1.0\r\n\r\n');
    expect(h.urls.slice(-4)).toEqual(['http://example.test:8080/a/b?c=d', 'http://example.test/y/z', 'http://other.test/abs?q=1', 'http://127.0.0.1/old']);
  });

  it('refuses a Host the URL parser would read as another, a port out of range, and a target that is not a path', async () => {
    const before = bad.length;
    for (const request of [
      'GET /x HTTP/1.1\r\nHost: user@example.test\r\nConnection: close\r\n\r\n',
      'GET /x HTTP/1.1\r\nHost: example.test:99999\r\nConnection: close\r\n\r\n',
      'GET /x HTTP/1.1\r\nHost: example.test/evil\r\nConnection: close\r\n\r\n',
      'OPTIONS * HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n',
      'GET /a\\b HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n',
    ]) {
      const reply = await rawExchange(server.port, request);
      expect(statusOf(reply), request).toBe(400);
      expect(headerOf(reply, 'connection')).toBe('close');
    }
    expect(bad.slice(before).map((b) => b.target)).toEqual(['/x', '/x', '/x', '*', '/a\\b']);
    // A backslash in the query is not a path separator: served.
    expect(statusOf(await rawExchange(server.port, 'GET /q?a\\b HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n'))).toBe(200);
  });

  it('gives the handler the headers as sent and the body once; a second read is a TypeError', async () => {
    const echo = await h1Request(`${server.url}/echo`, { body: 'hello', headers: { 'x-one': 'a', 'content-type': 'text/plain' } });
    expect(JSON.parse(echo.body)).toMatchObject({ method: 'POST', body: 'hello', headers: { 'x-one': 'a', 'content-type': 'text/plain', 'content-length': '5' } });
    const twice = await h1Request(`${server.url}/twice`, { body: 'once' });
    expect(JSON.parse(twice.body)).toEqual({ first: 'once', second: 'TypeError: used true' });
    // Looking at request.body does not use it: text() still reads it (through that stream).
    const peek = await h1Request(`${server.url}/peek`, { body: 'peeked' });
    expect(JSON.parse(peek.body)).toEqual({ hasBody: true, text: 'peeked', used: true });
  });

  it('hands a body that came with its head whole at once, and reads one still on its way', async () => {
    const head = (length: number) => `POST /held HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${length}\r\n\r\n`;
    const bodyOf = (reply: string) => JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as unknown;
    const conn = await openRaw(server.port);
    // Head and body in one write, twice on the same connection (the stream ends; the next request is read).
    conn.socket.write(head(11) + 'hello world');
    await conn.waitFor('"used":true}');
    conn.socket.write(head(0));
    await conn.waitFor(/"text":"","used":true}/);
    // The head first, the body later: not here yet, so read as it arrives.
    const later = await openRaw(server.port);
    later.socket.write(head(5));
    await new Promise((r) => setTimeout(r, 50));
    later.socket.end('later');
    const replies = [conn.received(), later.received()].map((r) => r.split('HTTP/1.1 ').filter(Boolean).map(bodyOf));
    await later.closed;
    expect(replies[0]).toEqual([
      { held: true, text: 'hello world', used: true },
      { held: true, text: '', used: true },
    ]);
    expect([later.received()].map(bodyOf)).toEqual([{ held: false, text: 'later', used: true }]);
    conn.socket.destroy();
  });

  it('gives each of several requests written at once its own body', async () => {
    const request = (body: string) => `POST /held HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const conn = await openRaw(server.port);
    conn.socket.write(request('first') + request('') + request('third body'));
    await conn.waitFor(/("used":true\}[\s\S]*){3}/);
    const texts = conn.received().split('HTTP/1.1 ').filter(Boolean).map((r) => (JSON.parse(r.slice(r.indexOf('\r\n\r\n') + 4)) as { text: string }).text);
    expect(texts).toEqual(['first', '', 'third body']);
    conn.socket.destroy();
  });

  it('streams a chunked body to a handler that reads request.body', async () => {
    const conn = await openRaw(server.port);
    conn.socket.write('POST /stream HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n');
    await new Promise((r) => setTimeout(r, 50));
    conn.socket.write('6\r\n world\r\n0\r\n\r\n');
    await conn.closed;
    const reply = conn.received();
    expect(statusOf(reply)).toBe(200);
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({ text: 'hello world', used: true });
  });

  it('aborts the request signal when the client leaves before its answer', async () => {
    const conn = await openRaw(server.port);
    conn.socket.write('GET /wait HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await h.waitingStarted;
    conn.socket.destroy();
    const reason = (await h.abortSeen) as DOMException;
    expect(reason.name).toBe('AbortError');
  });

  it('tells the light client signal when the client leaves before its answer', async () => {
    const conn = await openRaw(server.port);
    conn.socket.write('POST /wait-light HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n');
    await h.lightWaitingStarted;
    conn.socket.destroy();
    expect(await h.lightAbortSeen).toBe(true);
  });

  it('answers HEAD with the headers and no body', async () => {
    const reply = await rawExchange(server.port, 'HEAD /echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(statusOf(reply)).toBe(200);
    expect(Number(headerOf(reply, 'content-length'))).toBeGreaterThan(0);
    expect(reply.endsWith('\r\n\r\n')).toBe(true);
  });

  it('writes every Set-Cookie field, and a streamed Response whole', async () => {
    const cookies = await h1Request(`${server.url}/cookies`, { method: 'GET' });
    expect(cookies.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(cookies.headers['x-kind']).toBe('cookies');
    const streamed = await h1Request(`${server.url}/streamed`, { method: 'GET' });
    expect(streamed.body).toBe('part one, part two');
    expect(streamed.headers['content-length']).toBe(String('part one, part two'.length));
  });
});

describe('the Node listener over HTTP/2', () => {
  let pki: TestPki;
  let server: RunningServer;
  let h: ReturnType<typeof routes>;
  beforeAll(async () => {
    pki = makeTestPki();
    h = routes();
    server = await startNodeServer({ fetch: h.fetch, port: 0, host: '127.0.0.1', tls: { cert: pki.cert, key: pki.key } });
  });
  afterAll(async () => {
    await server.close();
    pki.dispose();
  });

  it('builds the URL from :scheme and :authority and reads the body', async () => {
    const reply = await h2Request(`https://localhost:${server.port}`, '/echo?x=1', pki.ca, { body: 'over h2' });
    expect(JSON.parse(reply.body)).toMatchObject({ method: 'POST', body: 'over h2' });
    expect(h.urls.at(-1)).toBe(`https://localhost:${server.port}/echo?x=1`);
  });

  it('writes a standard method in upper case, as a Web Request does, whatever case :method had', async () => {
    const reply = await h2Request(`https://localhost:${server.port}`, '/echo', pki.ca, { method: 'post', body: 'lower' });
    expect(JSON.parse(reply.body)).toMatchObject({ method: 'POST', body: 'lower' });
  });

  it('streams a body sent without content-length to a handler that reads request.body', async () => {
    const reply = await h2Request(`https://localhost:${server.port}`, '/stream', pki.ca, { body: 'a stream over h2' });
    expect(JSON.parse(reply.body)).toEqual({ text: 'a stream over h2', used: true });
  });

  it('drops the connection-specific fields HTTP/2 forbids and keeps the others', async () => {
    const reply = await h2Request(`https://localhost:${server.port}`, '/hop', pki.ca, { method: 'GET' });
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('hop');
    expect(reply.headers['x-kept']).toBe('yes');
    expect(reply.headers.connection).toBeUndefined();
    expect(reply.headers['keep-alive']).toBeUndefined();
  });
});
