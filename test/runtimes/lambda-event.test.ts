/** The payload 2.0 mapping on its own: what the equality tests' JSON replies do not exercise. */
import { describe, expect, it } from 'vitest';
import { assertHttpEventV2, eventToRequest, normalizeHttpEvent, requestPath, responseToResult, type LambdaHttpEventV2 } from '../../src/adapters/lambda-event.js';
import { albEvent, functionUrlEvent, httpApiEvent, restApiEvent } from './lambda.js';

const asEvent = (e: Record<string, unknown>) => e as unknown as LambdaHttpEventV2;

describe('payload 2.0 event → Request', () => {
  it('keeps the query, joins cookies into one header, decodes a base64 body to its bytes', async () => {
    const bytes = Uint8Array.from([0, 1, 2, 253, 254, 255]);
    const event = asEvent({
      ...functionUrlEvent({ name: 'x', method: 'PUT', path: '/a/b?x=1&y=two%20words', headers: { 'X-Multi': 'a,b' } }, false),
      cookies: ['a=1', 'b=2'],
      body: Buffer.from(bytes).toString('base64'),
      isBase64Encoded: true,
    });
    const request = eventToRequest(event);
    expect(request.method).toBe('PUT');
    expect(request.url).toBe('https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-1.on.aws/a/b?x=1&y=two%20words');
    expect(request.headers.get('cookie')).toBe('a=1; b=2');
    expect(request.headers.get('x-multi')).toBe('a,b');
    expect(new Uint8Array(await request.arrayBuffer())).toEqual(bytes);
  });

  it('strips a named stage from the path, and only a whole segment of it', () => {
    const at = (path: string, stage: string) => requestPath(asEvent(httpApiEvent({ name: 'x', method: 'GET', path }, stage, false)));
    expect(at('/mutate', 'prod')).toBe('/mutate');
    expect(at('/', 'prod')).toBe('/');
    expect(at('/mutate', '$default')).toBe('/mutate');
    const raw = (rawPath: string, stage: string) => requestPath(asEvent({ ...httpApiEvent({ name: 'x', method: 'GET', path: '/' }, '$default', false), rawPath, requestContext: { http: { method: 'GET' }, stage } }));
    expect(raw('/production/mutate', 'prod')).toBe('/production/mutate');
    expect(raw('/prod', 'prod')).toBe('/');
  });

  it('strips a custom domain\'s base path after the stage, when the path starts with it (whole segments), and leaves other paths alone', () => {
    const raw = (rawPath: string, stage: string, basePath?: string) =>
      requestPath(asEvent({ ...httpApiEvent({ name: 'x', method: 'GET', path: '/' }, '$default', false), rawPath, requestContext: { http: { method: 'GET' }, stage } }), basePath);
    expect(raw('/amender/mutate', '$default', '/amender')).toBe('/mutate');
    expect(raw('/amender', '$default', '/amender')).toBe('/');
    expect(raw('/teams/amender/clusters/a/mutate', '$default', '/teams/amender')).toBe('/clusters/a/mutate');
    // The API's own endpoint (no base path), and paths that only look like it, as they are.
    expect(raw('/mutate', '$default', '/amender')).toBe('/mutate');
    expect(raw('/amenders/mutate', '$default', '/amender')).toBe('/amenders/mutate');
    expect(raw('/x/amender/mutate', '$default', '/amender')).toBe('/x/amender/mutate');
    // A named stage first, then the base path; without AMENDER_BASE_PATH nothing more is taken off.
    expect(raw('/prod/amender/mutate', 'prod', '/amender')).toBe('/mutate');
    expect(raw('/amender/mutate', '$default')).toBe('/amender/mutate');
  });

  it('refuses what is not an HTTP event of payload 2.0', () => {
    expect(() => assertHttpEventV2({ version: '1.0', httpMethod: 'POST', path: '/mutate' })).toThrow(/payload format 2\.0.*got version "1\.0"/);
    expect(() => assertHttpEventV2(null)).toThrow('the event is not an object');
    expect(() => assertHttpEventV2({ version: '2.0', rawPath: '/x' })).toThrow(/rawPath or requestContext\.http\.method/);
    const http = { version: '2.0', rawPath: '/mutate', requestContext: { http: { method: 'POST' } } };
    expect(() => assertHttpEventV2({ ...http, body: { kind: 'AdmissionReview' } })).toThrow("the event's body is not a string (object)");
    expect(() => assertHttpEventV2({ ...http, headers: 'content-type: application/json' })).toThrow("the event's headers are not an object");
    expect(() => assertHttpEventV2({ ...http, cookies: 'a=1' })).toThrow("the event's cookies are not a list of strings");
    expect(() => assertHttpEventV2({ ...http, body: '{}', headers: {}, cookies: ['a=1'] })).not.toThrow();
    // rawPath follows the host in the URL: one that is not a path would change the host.
    expect(() => assertHttpEventV2({ ...http, rawPath: 'evil.example/mutate' })).toThrow("the event's rawPath is not a path");
    expect(() => assertHttpEventV2({ ...http, rawPath: '' })).not.toThrow();
  });

  it("gives a header value holding characters past U+00FF as its UTF-8 bytes, as Node's server reads those bytes", () => {
    const request = eventToRequest(asEvent(functionUrlEvent({ name: 'x', method: 'GET', path: '/', headers: { 'cf-ipcity': 'Srī' } }, false)));
    // Node's HTTP parser hands each byte of a header value over as one character (Latin-1).
    expect(request.headers.get('cf-ipcity')).toBe(Buffer.from('Srī', 'utf8').toString('latin1'));
  });

  it('takes the host from the Host header, else the domain; refuses a Host that would carry a path', () => {
    const event = (host: string) => asEvent({ ...functionUrlEvent({ name: 'x', method: 'GET', path: '/healthz', headers: { host } }, false) });
    expect(eventToRequest(event('example.com:8443')).url).toBe('https://example.com:8443/healthz');
    expect(eventToRequest(event('')).url).toBe('https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.eu-west-1.on.aws/healthz');
    for (const host of ['example.com/x', 'u@example.com', 'example.com?', 'a b']) expect(() => eventToRequest(event(host)), host).toThrow('the Host header is not a host name');
  });
});

describe('Response → payload 2.0 result', () => {
  it('sends JSON as text', async () => {
    const result = await responseToResult(Response.json({ a: 'é' }, { status: 201 }));
    expect(result).toEqual({ statusCode: 201, headers: { 'content-type': 'application/json' }, body: '{"a":"é"}', isBase64Encoded: false });
  });

  it('sends binary bodies base64, and text that is not UTF-8 too', async () => {
    const bytes = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 255]);
    const binary = await responseToResult(new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } }));
    expect(binary.isBase64Encoded).toBe(true);
    expect(Buffer.from(binary.body!, 'base64')).toEqual(Buffer.from(bytes));
    const notUtf8 = await responseToResult(new Response(Uint8Array.from([0xff, 0xfe]), { headers: { 'content-type': 'text/plain' } }));
    expect(notUtf8).toMatchObject({ isBase64Encoded: true, body: '//4=' });
    const gzipped = await responseToResult(new Response('abc', { headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' } }));
    expect(gzipped).toMatchObject({ isBase64Encoded: true, body: 'YWJj' });
  });

  it('moves Set-Cookie headers to cookies', async () => {
    const headers = new Headers({ 'content-type': 'text/plain' });
    headers.append('set-cookie', 'a=1; Path=/');
    headers.append('set-cookie', 'b=2');
    const result = await responseToResult(new Response('ok', { headers }));
    expect(result.cookies).toEqual(['a=1; Path=/', 'b=2']);
    expect(result.headers).toEqual({ 'content-type': 'text/plain' });
  });
});

describe('payload 1.0 and load balancer events → payload 2.0', () => {
  it("takes a REST API's path as it is, whatever its stage is named; an HTTP API's 1.0 path without its named stage", () => {
    const urlPath = (event: Record<string, unknown>) => {
      const { event: converted } = normalizeHttpEvent(event);
      assertHttpEventV2(converted);
      return new URL(eventToRequest(converted).url).pathname;
    };
    const onStage = (event: Record<string, unknown>, stage: string, path = event.path) => ({ ...event, path, requestContext: { ...(event.requestContext as object), stage } });
    // A REST API's `path` never holds the stage (requestContext.path does): a stage named like the first segment takes nothing off.
    for (const path of ['/mutate', '/clusters/a/s3cret/mutate', '/healthz']) {
      const rest = restApiEvent({ name: 'r', method: 'POST', path, body: '{}' }, false);
      expect(urlPath(onStage(rest, path.split('/')[1]))).toBe(path);
    }
    // An HTTP API's payload 1.0 (`version: "1.0"`) has it in `path`, as 2.0 has it in rawPath.
    const http10 = { ...restApiEvent({ name: 'r', method: 'POST', path: '/mutate', body: '{}' }, false), version: '1.0' };
    expect(urlPath(onStage(http10, 'mutate', '/mutate/mutate'))).toBe('/mutate');
    expect(urlPath(onStage(http10, 'prod', '/prod/mutate'))).toBe('/mutate');
  });

  it('keeps a header or query parameter named __proto__ as a name like any other', () => {
    const withProto = (e: Record<string, unknown>) => JSON.parse(JSON.stringify(e).replaceAll('"X-Forwarded-Port"', '"__proto__"').replaceAll('"x-forwarded-port"', '"__proto__"')) as Record<string, unknown>;
    const review = { name: 'r', method: 'POST' as const, path: '/mutate?__proto__=1&a=2', body: '{}' };
    for (const event of [restApiEvent(review, false), albEvent(review, true, false), albEvent(review, false, false)]) {
      const { event: converted } = normalizeHttpEvent(withProto(event));
      const v2 = converted as LambdaHttpEventV2;
      expect(Object.hasOwn(v2.headers!, '__proto__')).toBe(true);
      expect(v2.headers!.__proto__).toBe('443');
      expect(v2.rawQueryString).toBe('__proto__=1&a=2');
      expect(eventToRequest(v2).headers.get('__proto__')).toBe('443');
    }
  });
});
