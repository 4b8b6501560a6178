/**
 * The light Headers and Response (src/adapters/web) and the Lambda adapter's Request (lambda-request.ts)
 * behave like Node's for what the app, Hono and the adapters use: each case is run on both and the outcomes compared.
 */
import { describe, expect, it } from 'vitest';
import { responseToResult } from '../../src/adapters/lambda-event.js';
import { LambdaRequest } from '../../src/adapters/lambda-request.js';
import { LightHeaders, LightResponse } from '../../src/adapters/web/index.js';

/** What a call gave: its value, or the class and message of what it threw. */
function outcome<T>(run: () => T): { value: T } | { threw: string; message: string } {
  try {
    return { value: run() };
  } catch (err) {
    return { threw: (err as Error).constructor.name, message: (err as Error).message };
  }
}

const headersOf = (h: { entries(): Iterable<[string, string]> }) => [...h.entries()];

describe('LightHeaders like Headers', () => {
  it('stores, combines, sorts and iterates fields the same way', () => {
    const build = (H: typeof Headers | typeof LightHeaders) => {
      const h = new H({ B: ' 1 ', a: '2\t' }) as Headers;
      h.append('b', '3');
      h.append('Set-Cookie', 'x=1; Path=/');
      h.append('set-cookie', 'y=2');
      h.set('C', 'c');
      h.delete('a');
      const copy = new H(h as never) as Headers;
      copy.append('c', 'd');
      return { entries: headersOf(h), copy: headersOf(copy), cookie: h.get('set-cookie'), cookies: h.getSetCookie(), has: [h.has('B'), h.has('a'), h.get('nope')], pairs: headersOf(new H([['k', 'v']]) as Headers) };
    };
    expect(build(LightHeaders)).toEqual(build(Headers));
    const forEachOf = (h: Headers | LightHeaders) => {
      const seen: string[] = [];
      (h as Headers).forEach((value, name) => seen.push(`${name}=${value}`));
      return seen;
    };
    expect(forEachOf(new LightHeaders({ z: '1', y: '2' }))).toEqual(forEachOf(new Headers({ z: '1', y: '2' })));
  });

  it('refuses the same names and values with the same errors', () => {
    for (const [name, value] of [['a b', 'x'], ['', 'x'], ['a', 'x\ny'], ['a', 'x\r'], ['a', 'nul\0']]) {
      expect(outcome(() => new LightHeaders().set(name, value))).toEqual(outcome(() => new Headers().set(name, value)));
      expect(outcome(() => new LightHeaders().append(name, value))).toEqual(outcome(() => new Headers().append(name, value)));
    }
    expect(outcome(() => new LightHeaders([['a', 'b', 'c']] as never))).toMatchObject({ threw: 'TypeError' });
    // Beyond U+00FF a value is not a ByteString: refused by both (the messages differ).
    expect(outcome(() => new Headers().set('a', '€'))).toMatchObject({ threw: 'TypeError' });
    expect(outcome(() => new LightHeaders().set('a', '€'))).toMatchObject({ threw: 'TypeError' });
    expect(new LightHeaders({ a: 'é' }).get('a')).toBe(new Headers({ a: 'é' }).get('a'));
  });
});

describe('LambdaRequest like Request', () => {
  it('normalizes the URL and the method, and refuses what Request refuses with the same errors', () => {
    const cases: [string, { method?: string; body?: string }][] = [
      ['https://Host.example/a/../b?q=%7e&x=y z', { method: 'post', body: '{}' }],
      ['https://h/x', { method: 'delete' }],
      ['https://h/x', { method: 'Foo' }],
      ['https://h/x', { method: 'a b' }],
      ['https://h y/x', {}],
      ['https://user:pw@h/x', {}],
      ['https://h/x', { method: 'GET', body: 'x' }],
    ];
    for (const [url, init] of cases) {
      const seen = (make: () => { url: string; method: string; headers: unknown }) =>
        outcome(() => {
          const r = make();
          return { url: r.url, method: r.method, headers: headersOf(r.headers as Headers) };
        });
      const ours = seen(() => new LambdaRequest(url, init));
      // Request labels a text body text/plain; LambdaRequest does not (the next test).
      const node = seen(() => {
        const r = new Request(url, init);
        r.headers.delete('content-type');
        return r;
      });
      if ('threw' in node && url.includes('@')) expect(ours).toMatchObject({ threw: node.threw }); // message names the URL
      else expect(ours).toEqual(node);
    }
  });

  it('takes the methods fetch forbids making (CONNECT, TRACE, TRACK), which Request refuses: the app answers them', () => {
    for (const method of ['TRACE', 'track', 'CONNECT']) {
      expect(outcome(() => new Request('https://h/x', { method }))).toMatchObject({ threw: 'TypeError' });
      expect(new LambdaRequest('https://h/x', { method }).method).toBe(method);
    }
  });

  it('keeps the Content-Type it is given (none for a text body, unlike Request), and reads a body once in any form', async () => {
    const read = async (make: (body: string | Uint8Array | undefined, headers?: Record<string, string>) => Request | LambdaRequest) => {
      const text = make('{"a":"é"}');
      const bytes = make(Uint8Array.from([1, 2, 255]), { 'content-type': 'application/octet-stream' });
      const typed = make('x', { 'content-type': 'application/json' });
      const none = make(undefined);
      const clone = text.clone();
      const first = await text.json();
      const usedAfter = text.bodyUsed;
      const again = await text.text().catch((e: Error) => e.constructor.name);
      const streamAfter = outcome(() => text.body!.getReader()) as { threw?: string };
      const streamed: number[] = [];
      const reader = bytes.body!.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) streamed.push(...chunk.value);
      return {
        types: [text.headers.get('content-type'), bytes.headers.get('content-type'), typed.headers.get('content-type'), none.headers.get('content-type')],
        first,
        usedAfter,
        again,
        streamAfter: streamAfter.threw,
        clone: await clone.text(),
        streamed,
        streamUsed: bytes.bodyUsed,
        afterStream: await bytes.arrayBuffer().catch((e: Error) => e.constructor.name),
        none: [none.body, new Uint8Array(await none.arrayBuffer()).length, none.bodyUsed],
        blob: await (await make('abc', { 'content-type': 'text/plain' }).blob()).text(),
        signal: text.signal.aborted,
        defaults: (['cache', 'credentials', 'mode', 'redirect', 'referrer', 'integrity', 'keepalive'] as const).map((k) => (text as Request)[k]),
      };
    };
    const ours = await read((body, headers) => new LambdaRequest('https://h/mutate', { method: 'POST', ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) }));
    const node = await read((body, headers) => new Request('https://h/mutate', { method: 'POST', ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) }));
    // Request labels a text body text/plain; the event's headers are kept as the client sent them.
    expect(node.types[0]).toBe('text/plain;charset=UTF-8');
    expect(ours.types).toEqual([null, ...node.types.slice(1)]);
    expect({ ...ours, types: [] }).toEqual({ ...node, types: [] });
  });
});

describe('LightResponse like Response', () => {
  it('checks the status and body the same way, and sets the same default Content-Type', () => {
    const inits: [unknown, ResponseInit | undefined][] = [
      ['text', undefined],
      ['{}', { status: 201, headers: { 'Content-Type': 'application/json', 'X-A': '1' } }],
      [Uint8Array.from([1, 2]), { status: 404 }],
      [new URLSearchParams('a=1&b=2'), undefined],
      [null, { status: 204, statusText: 'No Content' }],
      ['body', { status: 204 }],
      ['x', { status: 99 }],
      ['x', { status: 600 }],
      ['x', { statusText: 'a\nb' }],
    ];
    const seen = (make: () => Response | LightResponse) =>
      outcome(() => {
        const r = make();
        return { status: r.status, statusText: r.statusText, ok: r.ok, headers: headersOf(r.headers as Headers), type: (r as Response).type, url: (r as Response).url, redirected: (r as Response).redirected };
      });
    for (const [body, init] of inits) {
      expect(seen(() => new LightResponse(body, init as never))).toEqual(seen(() => new Response(body as never, init)));
    }
    expect(seen(() => LightResponse.json({ a: 1 }, { status: 400 }))).toEqual(seen(() => Response.json({ a: 1 }, { status: 400 })));
  });

  it("takes a response as init (Hono's HEAD) and clones, and instanceof holds for both kinds", async () => {
    const get = new LightResponse('{"ok":true}', { status: 200, headers: [['content-type', 'application/json'], ['allow', 'GET, HEAD']] });
    const head = new LightResponse(null, get as never);
    expect([head.status, headersOf(head.headers), head.body]).toEqual([200, headersOf(get.headers), null]);
    const copy = get.clone();
    expect(await get.json()).toEqual({ ok: true });
    expect(await copy.text()).toBe('{"ok":true}');
    await expect(get.text()).rejects.toThrow(TypeError);
    expect(() => get.clone()).toThrow(TypeError);
    expect(get instanceof LightResponse && new Response('x') instanceof LightResponse).toBe(true);
    expect(new LightHeaders() instanceof LightHeaders && new Headers() instanceof LightHeaders).toBe(true);
    expect(new Request('https://h/') instanceof LambdaRequest && !({} instanceof LightResponse)).toBe(true);
    // A body kind not handled here makes Node's own Response.
    const blob = new LightResponse(new Blob(['b'], { type: 'text/x' }), { status: 202 });
    expect(blob instanceof Response && blob instanceof LightResponse).toBe(true);
    expect([blob.status, blob.headers.get('content-type'), await blob.text()]).toEqual([202, 'text/x', 'b']);
  });

  it('becomes the same Lambda result as Response does', async () => {
    const cases: [string | Uint8Array, Record<string, string>][] = [
      ['{"a":"é"}', { 'content-type': 'application/json' }],
      ['\ud800 lone', { 'content-type': 'application/json' }],
      ['\ufeffBOM', { 'content-type': 'text/plain' }],
      ['plain', {}],
      ['zipped', { 'content-type': 'text/plain', 'content-encoding': 'gzip' }],
      ['text as bytes', { 'content-type': 'application/octet-stream' }],
      [Uint8Array.from([0xff, 0xfe]), { 'content-type': 'text/plain' }],
    ];
    for (const [body, headers] of cases) {
      const h = new Headers(headers);
      h.append('set-cookie', 'a=1');
      expect(await responseToResult(new LightResponse(body, { status: 418, headers: h }) as unknown as Response)).toEqual(await responseToResult(new Response(body, { status: 418, headers: h })));
    }
  });
});
