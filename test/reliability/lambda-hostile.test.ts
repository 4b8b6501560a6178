/**
 * The Node sweep's hostile inputs (hostile-inputs.ts) through the built Lambda handler (dist/lambda, in a
 * harness process standing in for the Lambda runtime) with the 50-policy set, as real events: Function
 * URL and API Gateway HTTP API (payload 2.0) events with plain and base64 bodies, REST API (payload 1.0)
 * events, and events no AWS service sends (no requestContext, a body that is not a string, bad base64,
 * headers as a list or with list values, odd methods, paths and hosts). Every invocation returns a
 * well-formed result of the right class — a 200 AdmissionReview whose patch applies, or a 4xx with a
 * JSON Status — never a throw, a 5xx, a hang (each invocation is bounded) or a warning on standard error
 * (an unhandled rejection would print one, or end the process); /healthz keeps answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../node/built.js';
import { ensureBuilt, type HttpCase } from '../runtimes/helpers.js';
import { albEvent, functionUrlEvent, httpApiEvent, restApiEvent, startLambda, type LambdaProcess, type LambdaResult } from '../runtimes/lambda.js';
import { expectWellFormed, HOSTILE_BODIES, REVIEW, reviewOfSize, type Obj } from './hostile-inputs.js';

const MAX_BODY_BYTES = 1 << 20;
const JSON_TYPE = { 'content-type': 'application/json' };

type Event = Record<string, any>;

/** A POST /mutate event of `shape` carrying `body`: bytes are sent base64 (the only way a non-UTF-8 body arrives). */
function reviewEvent(shape: Shape, body: string | Buffer, headers: Record<string, string> = JSON_TYPE): Event | undefined {
  const c: HttpCase = { name: 'review', method: 'POST', path: '/mutate', body: typeof body === 'string' ? body : body.toString('latin1'), headers };
  const event = SHAPES[shape](c) as Event;
  if (typeof body === 'string') return event;
  if (!event.isBase64Encoded) return Buffer.from(body.toString('utf8')).equals(body) ? { ...event, body: body.toString('utf8') } : undefined;
  const length = event.headers['content-length'] === undefined ? {} : { 'content-length': String(body.length) };
  return { ...event, body: body.toString('base64'), headers: { ...event.headers, ...length } };
}

const SHAPES = {
  'Function URL, plain': (c: HttpCase) => functionUrlEvent(c, false),
  'Function URL, base64': (c: HttpCase) => functionUrlEvent(c, true),
  'HTTP API $default, plain': (c: HttpCase) => httpApiEvent(c, '$default', false),
  'HTTP API stage prod, base64': (c: HttpCase) => httpApiEvent(c, 'prod', true),
} as const;
type Shape = keyof typeof SHAPES;

const get = (path: string, headers: Record<string, string> = {}): Event => functionUrlEvent({ name: 'get', method: 'GET', path, headers }, false);
const post = (body: string = REVIEW, headers: Record<string, string> = JSON_TYPE): Event => functionUrlEvent({ name: 'post', method: 'POST', path: '/mutate', body, headers }, false);
const withMethod = (event: Event, method: unknown): Event => ({ ...event, requestContext: { ...event.requestContext, http: { ...event.requestContext.http, method } } });
const without = (event: Event, key: string): Event => Object.fromEntries(Object.entries(event).filter(([k]) => k !== key));

/**
 * Events no AWS service sends, or sends rarely, and the status each gets: a number, or 'any' where
 * only a well-formed answer is asked (the route decides: 200, 404, 405).
 */
function oddEvents(): [string, unknown, number | 'any'][] {
  const ok = post();
  return [
    ['null', null, 400],
    ['a string', 'POST /mutate', 400],
    ['a number', 42, 400],
    ['a list', [ok], 400],
    ['an empty object', {}, 400],
    ['version 2.0 and nothing else', { version: '2.0' }, 400],
    ['no requestContext', without(ok, 'requestContext'), 400],
    ['requestContext without http', { ...ok, requestContext: { stage: '$default' } }, 400],
    ['requestContext.http null', { ...ok, requestContext: { http: null } }, 400],
    ['the method a number', withMethod(ok, 7), 400],
    ['no rawPath', without(ok, 'rawPath'), 400],
    ['rawPath a number', { ...ok, rawPath: 7 }, 400],
    ['body null', { ...ok, body: null }, 400],
    ['no body', without(ok, 'body'), 400],
    ['body an object', { ...ok, body: JSON.parse(REVIEW) }, 400],
    ['body a number', { ...ok, body: 12 }, 400],
    ['isBase64Encoded with invalid base64', { ...ok, body: '%%% not base64 %%%', isBase64Encoded: true }, 400],
    ['isBase64Encoded with base64 of text that is not JSON', { ...ok, body: 'YWJj', isBase64Encoded: true }, 400],
    ['isBase64Encoded with an empty body', { ...ok, body: '', isBase64Encoded: true }, 400],
    ['isBase64Encoded with unpadded base64', { ...ok, body: Buffer.from(REVIEW).toString('base64').replace(/=+$/, ''), isBase64Encoded: true }, 'any'],
    ['isBase64Encoded a string, body plain JSON', { ...ok, isBase64Encoded: 'true' }, 400],
    ['headers a list', { ...ok, headers: [['content-type', 'application/json']] }, 400],
    ['headers a string', { ...ok, headers: 'content-type: application/json' }, 400],
    ['headers null (no Content-Type, no Host)', { ...ok, headers: null }, 200],
    ['header values lists', { ...ok, headers: { ...ok.headers, 'content-type': ['application/json'], 'x-many': ['a', 'b'] } }, 'any'],
    ['header values a number, an object, null', { ...ok, headers: { ...ok.headers, 'x-n': 5, 'x-o': { a: 1 }, 'x-null': null } }, 'any'],
    ['header names in mixed case', { ...ok, headers: { 'Content-Type': 'application/json', HOST: 'example.com', 'Content-LENGTH': String(REVIEW.length) } }, 200],
    ['a header value with a newline', { ...ok, headers: { ...ok.headers, 'x-bad': 'a\r\nb' } }, 400],
    ['a header value beyond Latin-1 (AWS decodes header bytes as UTF-8): its UTF-8 bytes, as on Node', { ...ok, headers: { ...ok.headers, 'x-bad': '€' } }, 200],
    ['a header name with a space', { ...ok, headers: { ...ok.headers, 'x bad': '1' } }, 400],
    ['Content-Length not a number', post(REVIEW, { ...JSON_TYPE, 'content-length': 'abc' }), 400],
    ['Content-Length negative', post(REVIEW, { ...JSON_TYPE, 'content-length': '-1' }), 400],
    ['Content-Length over the limit', post(REVIEW, { ...JSON_TYPE, 'content-length': '99999999999' }), 413],
    ['Content-Length smaller than the body', post(REVIEW, { ...JSON_TYPE, 'content-length': '10' }), 200],
    ['Content-Length larger than a base64 body', { ...functionUrlEvent({ name: 'b', method: 'POST', path: '/mutate', body: REVIEW, headers: JSON_TYPE }, true), headers: { ...post().headers, 'content-length': String(MAX_BODY_BYTES) } }, 200],
    ['cookies a string', { ...ok, cookies: 'a=1' }, 400],
    ['cookies with a number', { ...ok, cookies: ['a=1', 2] }, 400],
    ['cookies', { ...ok, cookies: ['a=1', 'b=2'] }, 200],
    ['Content-Type with charset latin1', post(REVIEW, { 'content-type': 'application/json; charset=iso-8859-1' }), 200],
    ['Content-Type with charset utf-16', post(REVIEW, { 'content-type': 'application/json; charset=utf-16' }), 200],
    ['Content-Type twice, joined', post(REVIEW, { 'content-type': 'application/json, text/plain' }), 'any'],
    ['Content-Type form', post(REVIEW, { 'content-type': 'application/x-www-form-urlencoded' }), 415],
    ['Content-Encoding gzip', post(REVIEW, { ...JSON_TYPE, 'content-encoding': 'gzip' }), 415],
    ['method PROPFIND on /mutate', withMethod(ok, 'PROPFIND'), 'any'],
    ['method in lower case', withMethod(ok, 'post'), 200],
    ['method TRACE', withMethod(get('/healthz'), 'TRACE'), 405],
    ['method TRACE on /mutate', withMethod(ok, 'TRACE'), 405],
    ['method CONNECT', withMethod(get('/healthz'), 'CONNECT'), 405],
    ['method empty', withMethod(ok, ''), 400],
    ['method with a space', withMethod(ok, 'PO ST'), 400],
    ['method DELETE on /mutate', withMethod(ok, 'DELETE'), 405],
    ['method OPTIONS on /mutate', withMethod(get('/mutate'), 'OPTIONS'), 'any'],
    ['method HEAD on /healthz', withMethod(get('/healthz'), 'HEAD'), 200],
    ['method GET with a body', withMethod(ok, 'GET'), 405],
    ['rawPath empty', { ...get('/healthz'), rawPath: '' }, 404],
    ['rawPath without a leading slash', { ...get('/healthz'), rawPath: 'healthz' }, 400],
    ['rawPath that names a user', { ...get('/healthz'), rawPath: '@evil.example/healthz' }, 400],
    ['rawPath that names a host', { ...ok, rawPath: '.evil.example/mutate' }, 400],
    ['rawPath //healthz', get('//healthz'), 404],
    ['rawPath with dot segments', get('/mutate/../healthz'), 200],
    ['rawPath with a bad escape', get('/%zz'), 404],
    ['rawPath with a NUL and non-ASCII', get('/\u0000é'), 404],
    ['rawPath of 100,000 characters', get('/' + 'a'.repeat(100_000)), 404],
    // A '#' in rawPath is an HTTP API's decoding of %23 (a path as sent holds none): the path /mutate%23x.
    ['rawPath with a fragment', { ...ok, rawPath: '/mutate#x' }, 404],
    ['rawQueryString odd', { ...ok, rawQueryString: '%%&a=\u0000&=&&b' }, 200],
    ['Host with a space', post(REVIEW, { ...JSON_TYPE, host: 'a b' }), 400],
    ['Host with a port out of range', post(REVIEW, { ...JSON_TYPE, host: 'example.com:99999' }), 400],
    ['Host with credentials', post(REVIEW, { ...JSON_TYPE, host: 'user:pw@example.com' }), 400],
    ['Host empty', post(REVIEW, { ...JSON_TYPE, host: '' }), 200],
    ['Host with a path', post(REVIEW, { ...JSON_TYPE, host: 'example.com/x' }), 400],
    ['Host with a query', post(REVIEW, { ...JSON_TYPE, host: 'example.com?' }), 400],
    ['stage a number', { ...ok, requestContext: { ...ok.requestContext, stage: 7 } }, 200],
    ['1,000 headers', { ...ok, headers: { ...ok.headers, ...Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`x-h${i}`, String(i)])) } }, 200],
    ['REST API (1.0) with multiValueHeaders', restApiEvent({ name: 'rest', method: 'POST', path: '/mutate', body: REVIEW, headers: JSON_TYPE }, false), 200],
    ['REST API (1.0), base64', restApiEvent({ name: 'rest', method: 'POST', path: '/mutate', body: REVIEW, headers: JSON_TYPE }, true), 200],
    ['REST API (1.0) health check', restApiEvent({ name: 'rest', method: 'GET', path: '/healthz' }, false), 200],
    ['HTTP API payload 1.0', { ...restApiEvent({ name: 'v1', method: 'POST', path: '/mutate', body: REVIEW, headers: JSON_TYPE }, false), version: '1.0' }, 200],
    ['REST API (1.0) headers only, no multiValueHeaders', { ...restApiEvent({ name: 'rest', method: 'POST', path: '/mutate', body: REVIEW, headers: JSON_TYPE }, false), multiValueHeaders: null }, 200],
    ['REST API (1.0) multiValueHeaders not lists', { ...restApiEvent({ name: 'rest', method: 'POST', path: '/mutate', body: REVIEW, headers: JSON_TYPE }, false), multiValueHeaders: { 'content-type': 'application/json' } }, 400],
    ['REST API (1.0) a header value not a string', { ...restApiEvent({ name: 'rest', method: 'POST', path: '/mutate', body: REVIEW, headers: JSON_TYPE }, false), multiValueHeaders: null, headers: { 'content-type': 5 } }, 400],
    ['REST API (1.0) path without a leading slash', { ...restApiEvent({ name: 'rest', method: 'GET', path: '/healthz' }, false), path: 'evil.example/healthz' }, 400],
    ['REST API (1.0) a query with odd characters', restApiEvent({ name: 'rest', method: 'POST', path: '/mutate?timeout=10s&a=%26%3D%20x', body: REVIEW, headers: JSON_TYPE }, false), 200],
    ['REST API (1.0) a GET with a body', restApiEvent({ name: 'rest', method: 'GET', path: '/healthz', body: 'x' }, false), 200],
    ['load balancer, a query as sent', albEvent({ name: 'alb', method: 'POST', path: '/mutate?timeout=10s&a=%zz', body: REVIEW, headers: JSON_TYPE }, false, false), 200],
    ['load balancer multi-value, base64', albEvent({ name: 'alb', method: 'POST', path: '/mutate', body: REVIEW, headers: JSON_TYPE }, true, true), 200],
    ['1.0 version with no httpMethod', { version: '1.0', path: '/mutate' }, 400],
    ['version 3.0', { ...ok, version: '3.0' }, 400],
  ];
}

/** The result's status, content type and body text (base64 bodies decoded). */
function read(result: LambdaResult): { status: number; contentType: string | null; text: string } {
  expect(typeof result.statusCode).toBe('number');
  expect(typeof result.isBase64Encoded).toBe('boolean');
  const text = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
  const contentType = Object.entries(result.headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? null;
  return { status: result.statusCode, contentType, text };
}

beforeAll(() => ensureBuilt());

describe('hostile input through the Lambda handler', () => {
  let lambda: LambdaProcess;
  beforeAll(async () => {
    lambda = await startLambda({ AMENDER_POLICY_SOURCES: `file://${ROOT}bench/fixtures/policies-50`, AMENDER_MAX_BODY_BYTES: String(MAX_BODY_BYTES), AMENDER_LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    await lambda?.stop();
  });

  /** Invokes, checks the answer is well-formed, and that /healthz still answers. */
  async function answer(label: string, event: unknown, review?: string | Buffer): Promise<{ status: number; body: Obj | undefined }> {
    const { status, contentType, text } = read(await lambda.invoke(event));
    const body = expectWellFormed(label, status, contentType, text, review);
    expect(status, `${label}: ${text.slice(0, 300)}`).toBeLessThan(500);
    expect(read(await lambda.invoke(get('/healthz'))).status, `/healthz after ${label}`).toBe(200);
    return { status, body };
  }

  for (const shape of Object.keys(SHAPES) as Shape[]) {
    it(`answers the Node sweep's bodies as the Node server does: ${shape}`, async () => {
      let sent = 0;
      for (const [name, body, expected] of HOSTILE_BODIES) {
        for (const headers of [JSON_TYPE, {}]) {
          const event = reviewEvent(shape, body, headers);
          if (event === undefined) continue; // bytes that are not UTF-8 only travel base64
          const label = `${shape}: ${name}${headers === JSON_TYPE ? '' : ', no Content-Type'}`;
          const { status } = await answer(label, event, body);
          expect(status, label).toBe(expected);
          sent++;
        }
      }
      expect(sent).toBeGreaterThanOrEqual(2 * (HOSTILE_BODIES.length - 1));
    });
  }

  it('answers bodies at the limit 200 and one byte over 413, plain and base64, in ASCII and in two-byte characters', async () => {
    const atLimit = reviewOfSize(MAX_BODY_BYTES);
    const over = reviewOfSize(MAX_BODY_BYTES + 1);
    const wide = (bytes: number) => reviewOfSize(bytes - 2 * 300_000).replace('"pad":"', `"pad":"${'é'.repeat(300_000)}`);
    for (const shape of Object.keys(SHAPES) as Shape[]) {
      for (const [label, body, expected] of [
        ['at the limit', atLimit, 200],
        ['one byte over', over, 413],
        ['two-byte characters at the limit', wide(MAX_BODY_BYTES), 200],
        ['two-byte characters one byte over', wide(MAX_BODY_BYTES + 1), 413],
        ['four times the limit', reviewOfSize(4 * MAX_BODY_BYTES), 413],
      ] as const) {
        expect(Buffer.byteLength(body)).toBe(label.includes('over') ? MAX_BODY_BYTES + 1 : label.includes('four') ? 4 * MAX_BODY_BYTES : MAX_BODY_BYTES);
        for (const lengthHeader of [true, false]) {
          const event = reviewEvent(shape, body)!;
          if (!lengthHeader) delete event.headers['content-length'];
          const { status } = await answer(`${shape}: ${label}${lengthHeader ? '' : ', no Content-Length'}`, event, body);
          expect(status, `${shape}: ${label}`).toBe(expected);
        }
      }
    }
  });

  it('answers events no AWS service sends with a well-formed result, never a throw', async () => {
    for (const [label, event, expected] of oddEvents()) {
      const { status } = await answer(label, event, REVIEW);
      if (expected !== 'any') expect.soft(status, label).toBe(expected);
    }
    expect(read(await lambda.invoke(get('/readyz'))).status).toBe(200);
    expect(lambda.stderr()).toBe('');
    expect(lambda.logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(lambda.child.exitCode).toBeNull();
  });
});
