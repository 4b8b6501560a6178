/**
 * The Node sweep's hostile inputs (hostile-inputs.ts) through the built Workers bundle (dist/workers) in
 * workerd through miniflare, on loopback, with the 50-policy set in an R2 bucket: the hostile bodies with
 * and without Content-Type, bodies at and over the size limit (declared and chunked), odd content types,
 * methods, paths and headers (raw HTTP/1.1, for what fetch will not send). Every answer is a 200
 * AdmissionReview whose patch applies or a 4xx with a JSON Status — never a 5xx, a hang (each exchange is
 * bounded) or an error from workerd (an unhandled rejection or a hung promise is logged there); /healthz
 * keeps answering. Requests workerd itself refuses before the Worker sees them are listed apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../node/built.js';
import { ensureBuilt } from '../runtimes/helpers.js';
import { startWorker, type RunningWorker } from '../runtimes/workers.js';
import { expectWellFormed, HOSTILE_BODIES, REVIEW, reviewOfSize } from './hostile-inputs.js';
import { headerOf, rawReply, statusOf } from './raw-http.js';

const MAX_BODY_BYTES = 1 << 20;
const JSON_TYPE = { 'content-type': 'application/json' };
const POLICIES = join(ROOT, 'bench/fixtures/policies-50');

/** The policies-50 files as R2 objects under `p50/`. */
function policyObjects(): Record<string, string> {
  const names = readdirSync(POLICIES).filter((f) => f.endsWith('.yaml'));
  return Object.fromEntries(names.map((f) => [`p50/${f}`, readFileSync(join(POLICIES, f), 'utf8')]));
}

/** A raw HTTP/1.1 reply's status, Content-Type and body (a chunked body decoded). */
function parseRaw(reply: string): { status: number; contentType: string | null; text: string } {
  const split = reply.indexOf('\r\n\r\n');
  let body = split < 0 ? '' : reply.slice(split + 4);
  if (headerOf(reply, 'transfer-encoding') === 'chunked') {
    let text = '';
    for (let at = 0; ; ) {
      const eol = body.indexOf('\r\n', at);
      const size = parseInt(body.slice(at, eol), 16);
      if (!(size > 0)) break;
      text += body.slice(eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
    body = text;
  }
  return { status: statusOf(reply), contentType: headerOf(reply, 'content-type') ?? null, text: Buffer.from(body, 'latin1').toString('utf8') };
}

/** A raw request: `head` lines after the request line, Host and Connection: close added unless given. */
function raw(requestLine: string, head: string[] = [], body = ''): string {
  const lines = [requestLine, ...head];
  if (!head.some((h) => /^host:/i.test(h))) lines.push('Host: 127.0.0.1');
  lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

const review = (head: string[] = ['Content-Type: application/json'], body = REVIEW) => raw('POST /mutate HTTP/1.1', [...head, `Content-Length: ${Buffer.byteLength(body)}`], body);

/**
 * Raw requests and the status each gets ('any': only a well-formed answer is asked; 'workerd': workerd
 * answers it before the Worker runs, plain text, whatever the Worker does).
 */
const RAW_CASES: [string, string, number | 'any' | 'workerd'][] = [
  ['a review without Content-Type', review([]), 200],
  ['Content-Type with charset latin1', review(['Content-Type: application/json; charset=iso-8859-1']), 200],
  ['Content-Type in upper case', review(['Content-Type: APPLICATION/JSON']), 200],
  ['Content-Type empty', review(['Content-Type:']), 200],
  ['two Content-Type headers', review(['Content-Type: application/json', 'Content-Type: text/plain']), 415],
  ['Content-Type text/plain', review(['Content-Type: text/plain']), 415],
  ['Content-Encoding gzip', review(['Content-Type: application/json', 'Content-Encoding: gzip']), 415],
  ['Content-Encoding identity', review(['Content-Type: application/json', 'Content-Encoding: identity']), 200],
  ['a body longer than its Content-Length', raw('POST /mutate HTTP/1.1', ['Content-Type: application/json', 'Content-Length: 10'], REVIEW), 400],
  ['chunked', raw('POST /mutate HTTP/1.1', ['Content-Type: application/json', 'Transfer-Encoding: chunked'], `${Buffer.byteLength(REVIEW).toString(16)}\r\n${REVIEW}\r\n0\r\n\r\n`), 200],
  ['Expect: 100-continue', review(['Content-Type: application/json', 'Expect: 100-continue']), 200],
  ['PROPFIND /mutate', raw('PROPFIND /mutate HTTP/1.1'), 'any'],
  ['DELETE /mutate', raw('DELETE /mutate HTTP/1.1'), 405],
  ['OPTIONS /mutate', raw('OPTIONS /mutate HTTP/1.1'), 'any'],
  ['PATCH /mutate with a review', raw('PATCH /mutate HTTP/1.1', ['Content-Type: application/json', `Content-Length: ${REVIEW.length}`], REVIEW), 405],
  ['HEAD /healthz', raw('HEAD /healthz HTTP/1.1'), 200],
  ['GET /healthz over HTTP/1.0 without Host (workerd refuses it)', 'GET /healthz HTTP/1.0\r\n\r\n', 'workerd'],
  ['GET //healthz', raw('GET //healthz HTTP/1.1'), 'any'],
  ['GET /mutate/../healthz', raw('GET /mutate/../healthz HTTP/1.1'), 200],
  ['GET /%zz', raw('GET /%zz HTTP/1.1'), 404],
  ['GET /é as UTF-8 bytes', Buffer.from(raw('GET /é HTTP/1.1'), 'utf8').toString('latin1'), 'any'],
  ['GET /health\\z', raw('GET /health\\z HTTP/1.1'), 'any'],
  ['a path of 8,000 characters', raw(`GET /${'a'.repeat(8000)} HTTP/1.1`), 'any'],
  ['a query of odd escapes', raw('GET /healthz?%%&a=%00&=&&b HTTP/1.1'), 200],
  ['an absolute-form target (workerd answers 500 itself)', raw('GET http://127.0.0.1/healthz HTTP/1.1'), 'workerd'],
  ['Host: a b (workerd answers 500 itself)', raw('GET /healthz HTTP/1.1', ['Host: a b']), 'workerd'],
  ['Host with credentials (workerd answers 500 itself)', raw('GET /healthz HTTP/1.1', ['Host: u:p@h']), 'workerd'],
  ['200 headers', raw('GET /healthz HTTP/1.1', Array.from({ length: 200 }, (_, i) => `X-H${i}: ${i}`)), 200],
  ['a header value with bytes beyond ASCII', raw('GET /healthz HTTP/1.1', ['X-Odd: \u00e9\u00ff']), 200],
];

beforeAll(() => ensureBuilt());

describe('hostile input through the Workers bundle', () => {
  let worker: RunningWorker;
  let port: number;
  beforeAll(async () => {
    worker = await startWorker({ AMENDER_POLICY_SOURCES: 'r2://POLICIES/p50', AMENDER_MAX_BODY_BYTES: String(MAX_BODY_BYTES), AMENDER_LOG_LEVEL: 'warn' }, policyObjects());
    port = Number(new URL(worker.origin).port);
  });
  afterAll(async () => {
    await worker?.dispose();
  });

  async function healthy(after: string): Promise<void> {
    const response = await fetch(new URL('/healthz', worker.origin), { signal: AbortSignal.timeout(10_000) });
    expect(response.status, `/healthz after ${after}`).toBe(200);
    await response.arrayBuffer();
  }

  async function post(label: string, body: Buffer | ReadableStream<Uint8Array>, headers: Record<string, string>, review?: string | Buffer): Promise<number> {
    const response = await fetch(new URL('/mutate', worker.origin), { method: 'POST', headers, body, signal: AbortSignal.timeout(20_000), ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);
    const text = await response.text();
    expectWellFormed(label, response.status, response.headers.get('content-type'), text, review);
    expect(response.status, `${label}: ${text.slice(0, 300)}`).toBeLessThan(500);
    await healthy(label);
    return response.status;
  }

  it("answers the Node sweep's bodies as the Node server does, with and without Content-Type", async () => {
    for (const [name, body, expected] of HOSTILE_BODIES) {
      for (const headers of [JSON_TYPE, {}]) {
        // Bytes: fetch adds no Content-Type of its own.
        const label = `${name}${headers === JSON_TYPE ? '' : ', no Content-Type'}`;
        expect(await post(label, Buffer.from(body), headers, body), label).toBe(expected);
      }
    }
  });

  it('answers bodies at the limit 200 and over it 413 (declared and chunked), not a reset while the client is still sending', async () => {
    const chunked = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = Buffer.from(text);
          for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
          controller.close();
        },
      });
    for (const [label, size, expected] of [
      ['at the limit', MAX_BODY_BYTES, 200],
      ['one byte over', MAX_BODY_BYTES + 1, 413],
      ['four times the limit', 4 * MAX_BODY_BYTES, 413],
      ['sixteen times the limit', 16 * MAX_BODY_BYTES, 413],
    ] as const) {
      const body = reviewOfSize(size);
      expect(await post(`${label}, declared`, Buffer.from(body), JSON_TYPE, body), label).toBe(expected);
      expect(await post(`${label}, chunked`, chunked(body), JSON_TYPE, body), `${label}, chunked`).toBe(expected);
    }
    // Refused for its type before any of it is read.
    const large = reviewOfSize(4 * MAX_BODY_BYTES);
    expect(await post('four times the limit as text/plain', Buffer.from(large), { 'content-type': 'text/plain' })).toBe(415);
  });

  it('answers odd requests with a well-formed answer', async () => {
    const refusedByWorkerd: string[] = [];
    for (const [label, request, expected] of RAW_CASES) {
      const reply = await rawReply(port, Buffer.from(request, 'latin1'), { headOnly: request.startsWith('HEAD') });
      const { status, contentType, text } = parseRaw(reply);
      expect(status, `${label}: ${reply.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
      if (expected === 'workerd') {
        expect(contentType, label).toBeNull();
        refusedByWorkerd.push(`${label}: ${status}`);
      } else {
        expect.soft(status, `${label}: ${reply.slice(0, 300)}`).toBeLessThan(500);
        expectWellFormed(label, status, contentType, request.startsWith('HEAD') ? '' : text, REVIEW);
        if (expected !== 'any') expect.soft(status, label).toBe(expected);
      }
      await healthy(label);
    }
    expect(refusedByWorkerd).toHaveLength(RAW_CASES.filter(([, , expected]) => expected === 'workerd').length);
    expect(worker.logs.filter((l) => l.level === 'error')).toEqual([]);
    // workerd reports an uncaught exception, an unhandled rejection or a promise that never settles.
    // (workerd logs its own refusals of a target or Host it cannot make a URL of as uncaught URL errors.)
    const ownRefusal = /kj\/compat\/url\.c\+\+|^stack: /;
    expect(worker.other.filter((l) => /uncaught|unhandled|exception|will never generate a response|hung/i.test(l) && !ownRefusal.test(l))).toEqual([]);
  });
});
