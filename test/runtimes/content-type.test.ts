/**
 * One rule for a review's Content-Type on every runtime: the built Node server, the Lambda handler (fed
 * Function URL and API Gateway HTTP API events, plain and base64 bodies) and the Workers bundle in
 * workerd answer the same review with the same status for each Content-Type, none at all included (the
 * route's rule, src/server/routes/mutate.ts: no Content-Type is read as JSON; kube-apiserver always sends
 * application/json, other clients may not). A REST API (payload 1.0) event is refused 400 whatever it carries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { everyRuntime } from './every-runtime.js';
import { ensureBuilt, httpCases } from './helpers.js';
import { functionUrlEvent, httpApiEvent, restApiEvent } from './lambda.js';

const REVIEW = httpCases()[0].body!;

/** Content-Type values (undefined: no header) and the status each review gets. */
const TYPES: [string | undefined, number][] = [
  [undefined, 200],
  ['', 200],
  ['application/json', 200],
  ['application/json; charset=utf-8', 200],
  ['Application/JSON;Charset=UTF-8', 200],
  ['application/vnd.kubernetes.admission+json', 200],
  ['text/plain', 415],
  ['text/plain;charset=UTF-8', 415],
  ['application/x-www-form-urlencoded', 415],
  ['multipart/form-data; boundary=x', 415],
  ['application/octet-stream', 415],
  ['application/json-seq', 415],
];

const headersFor = (type: string | undefined): Record<string, string> => (type === undefined ? {} : { 'content-type': type });

/** The status of a POST /mutate of the review over HTTP; the body is bytes, so fetch adds no Content-Type. */
async function httpStatus(origin: string, type: string | undefined): Promise<{ status: number; body: { kind?: string } }> {
  const response = await fetch(new URL('/mutate', origin), { method: 'POST', headers: headersFor(type), body: Buffer.from(REVIEW), signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: (await response.json()) as { kind?: string } };
}

beforeAll(() => ensureBuilt());

describe('a review without Content-Type, or with an odd one, on every runtime', () => {
  const runtimes = everyRuntime();

  it('the Node server answers each as the table says', async () => {
    for (const [type, expected] of TYPES) {
      const { status, body } = await httpStatus(runtimes.node.url, type);
      expect(status, `Content-Type ${JSON.stringify(type)}`).toBe(expected);
      expect(body.kind).toBe(expected === 200 ? 'AdmissionReview' : 'Status');
    }
  });

  it('the Worker answers each as the Node server does', async () => {
    for (const [type, expected] of TYPES) {
      const { status, body } = await httpStatus(runtimes.worker.origin, type);
      expect(status, `Content-Type ${JSON.stringify(type)}`).toBe(expected);
      expect(body.kind).toBe(expected === 200 ? 'AdmissionReview' : 'Status');
    }
  });

  const shapes: [string, (headers: Record<string, string>) => Record<string, unknown>][] = [
    ['Function URL, plain body', (headers) => functionUrlEvent({ name: 'r', method: 'POST', path: '/mutate', body: REVIEW, headers }, false)],
    ['Function URL, base64 body', (headers) => functionUrlEvent({ name: 'r', method: 'POST', path: '/mutate', body: REVIEW, headers }, true)],
    ['HTTP API $default stage, plain body', (headers) => httpApiEvent({ name: 'r', method: 'POST', path: '/mutate', body: REVIEW, headers }, '$default', false)],
    ['HTTP API stage "prod", base64 body', (headers) => httpApiEvent({ name: 'r', method: 'POST', path: '/mutate', body: REVIEW, headers }, 'prod', true)],
    ['REST API (payload 1.0), plain body', (headers) => restApiEvent({ name: 'r', method: 'POST', path: '/mutate', body: REVIEW, headers }, false)],
    ['REST API (payload 1.0), base64 body', (headers) => restApiEvent({ name: 'r', method: 'POST', path: '/mutate', body: REVIEW, headers }, true)],
  ];
  for (const [shape, event] of shapes) {
    it(`the Lambda handler answers each as the Node server does: ${shape}`, async () => {
      for (const [type, expected] of TYPES) {
        const result = await runtimes.lambda.invoke(event(headersFor(type)));
        expect(result.statusCode, `Content-Type ${JSON.stringify(type)}`).toBe(expected);
        expect((JSON.parse(result.body!) as { kind: string }).kind).toBe(expected === 200 ? 'AdmissionReview' : 'Status');
      }
    });
  }
});
