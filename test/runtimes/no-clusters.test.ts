/**
 * A deployment that serves no cluster answers a cluster route the same on every runtime (the built Node
 * server, the Lambda handler, the Workers bundle): 404 saying no such cluster is served (the name when
 * it is short, never a segment that may be a secret), as the Node server always did, and the same
 * access-log path.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../node/bundle.js';
import { everyRuntime } from './every-runtime.js';
import { ensureBuilt, httpCases, type HttpCase } from './helpers.js';
import { functionUrlEvent } from './lambda.js';

const SECRET = '3f9a6c0d2b8e4f17a5c9d3e6b0f2a8c4';
const REVIEW = httpCases()[0].body!;
const CASES: HttpCase[] = [
  { name: 'path secret', method: 'POST', path: `/clusters/x/${SECRET}/mutate`, body: REVIEW, headers: { 'content-type': 'application/json' } },
  { name: 'bearer', method: 'POST', path: '/clusters/x/mutate', body: REVIEW, headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` } },
  { name: 'secret in the name', method: 'POST', path: `/clusters/${SECRET}/mutate`, body: REVIEW, headers: { 'content-type': 'application/json' } },
  { name: 'readyz', method: 'GET', path: '/clusters/x/readyz' },
];

interface Answer {
  status: number;
  body: unknown;
}

beforeAll(() => ensureBuilt());

describe('cluster routes on a deployment without clusters, on every runtime', () => {
  const runtimes = everyRuntime();

  const overHttp = async (origin: string, c: HttpCase): Promise<Answer> => {
    const res = await fetch(new URL(c.path, origin), { method: c.method, headers: c.headers, body: c.body, signal: AbortSignal.timeout(10_000) });
    return { status: res.status, body: await res.json() };
  };
  const overLambda = async (c: HttpCase): Promise<Answer> => {
    const result = await runtimes.lambda.invoke(functionUrlEvent(c, false));
    return { status: result.statusCode, body: JSON.parse(result.body!) };
  };

  it('the Node server answers 404 naming the cluster, never the secret', async () => {
    const answers = await Promise.all(CASES.map((c) => overHttp(runtimes.node.url, c)));
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404]);
    expect((answers[0].body as { message: string }).message).toBe('no cluster named "x" is served here');
    for (const a of answers) expect(JSON.stringify(a.body)).not.toContain(SECRET);
  });

  it('the Worker and the Lambda handler answer each as the Node server does, and log the same path', async () => {
    const reference = await Promise.all(CASES.map((c) => overHttp(runtimes.node.url, c)));
    const fromWorker = await Promise.all(CASES.map((c) => overHttp(runtimes.worker.origin, c)));
    const fromLambda: Answer[] = [];
    for (const c of CASES) fromLambda.push(await overLambda(c));
    expect(fromWorker).toEqual(reference);
    expect(fromLambda).toEqual(reference);
    const paths = (logs: Record<string, unknown>[]) => logs.filter((l) => l.msg === 'request').map((l) => String(l.path)).sort();
    const expected = ['/clusters/x/[redacted]/mutate', '/clusters/x/mutate', '/clusters/[redacted]/mutate', '/clusters/x/readyz'].sort();
    // The handlers write their log lines as they answer; the last may still be on its way from the process.
    await waitFor('every request line', () => paths(runtimes.lambda.logs).length >= expected.length && paths(runtimes.worker.logs).length >= expected.length);
    expect(paths(runtimes.lambda.logs)).toEqual(expected);
    expect(paths(runtimes.worker.logs)).toEqual(expected);
    expect(JSON.stringify([runtimes.lambda.logs, runtimes.worker.logs])).not.toContain(SECRET);
  });
});
