/**
 * The built Lambda bundle (dist/lambda/index.mjs) in a fresh process, invoked with Function URL and API
 * Gateway HTTP API (payload 2.0) events, REST API (payload 1.0) and Application Load Balancer events,
 * plain and base64 bodies: every reply equals the built Node
 * server's for the same call and policies — the bundled set, and a set in S3 (s3rver on loopback) that
 * is refreshed across warm invocations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/clusters/index.js';
import { labelPolicy, patchOf, startS3, type TestS3 } from '../sources/helpers.js';
import { comparable, corpusPolicyFiles, ensureBuilt, httpCases, nodeReference, policyFolder, type HttpReply } from './helpers.js';
import { albEvent, functionUrlEvent, httpApiEvent, restApiEvent, resultReply, startLambda, type LambdaProcess } from './lambda.js';
import { waitFor } from '../node/bundle.js';

const cases = httpCases();

beforeAll(() => ensureBuilt());

describe('Lambda bundle with the bundled policy set', () => {
  let lambda: LambdaProcess;
  let reference: { replies: HttpReply[]; readyz: HttpReply };
  beforeAll(async () => {
    [lambda, reference] = await Promise.all([startLambda({}), nodeReference(cases)]);
  });
  afterAll(async () => {
    await lambda?.stop();
  });

  it('loaded the bundled set during init, before any invocation', () => {
    expect(lambda.logs.find((l) => l.msg === 'policy set applied')).toMatchObject({ policySet: 'default', counts: { mutatingAdmissionPolicies: 4 } });
    expect(lambda.logs.some((l) => l.msg === 'request')).toBe(false);
  });

  it('the sample review is patched (the comparison below compares something)', () => {
    expect(reference.replies[0].status).toBe(200);
    expect(patchOf(reference.replies[0].body as { response?: { patch?: string } }).length).toBeGreaterThan(0);
  });

  const shapes = [
    ['Function URL, plain body', (c: (typeof cases)[number]) => functionUrlEvent(c, false)],
    ['Function URL, base64 body', (c: (typeof cases)[number]) => functionUrlEvent(c, true)],
    ['HTTP API $default stage, plain body', (c: (typeof cases)[number]) => httpApiEvent(c, '$default', false)],
    ['HTTP API stage "prod" (path prefixed), base64 body', (c: (typeof cases)[number]) => httpApiEvent(c, 'prod', true)],
    ['REST API (payload 1.0) stage "prod", plain body', (c: (typeof cases)[number]) => restApiEvent(c, false)],
    ['REST API (payload 1.0) stage "prod", base64 body', (c: (typeof cases)[number]) => restApiEvent(c, true)],
    ['HTTP API with payload 1.0', (c: (typeof cases)[number]) => ({ ...restApiEvent(c, false), version: '1.0' })],
    ['Application Load Balancer, plain body', (c: (typeof cases)[number]) => albEvent(c, false, false)],
    ['Application Load Balancer with multi-value headers, base64 body', (c: (typeof cases)[number]) => albEvent(c, true, true)],
  ] as const;

  for (const [shape, event] of shapes) {
    it(`answers every call like the Node server: ${shape}`, async () => {
      for (const [i, c] of cases.entries()) {
        const result = await lambda.invoke(event(c));
        expect(typeof result.body).toBe('string');
        expect(resultReply(result), `${c.name}`).toEqual(reference.replies[i]);
        expect(result.isBase64Encoded).toBe(false); // JSON replies travel as text
      }
    });
  }

  it('answers each event in its own format: payload 1.0 with headers, a load balancer with its status line, and multi-value headers when its event had them', async () => {
    const call = cases[0];
    const rest = await lambda.invoke(restApiEvent(call, false));
    expect(rest).toMatchObject({ statusCode: 200, headers: { 'content-type': 'application/json' }, isBase64Encoded: false });
    expect(rest).not.toHaveProperty('cookies');
    const alb = await lambda.invoke(albEvent(call, false, false));
    expect(alb).toMatchObject({ statusCode: 200, statusDescription: '200 OK', headers: { 'content-type': 'application/json' } });
    const multi = await lambda.invoke(albEvent(call, true, false));
    expect(multi).toMatchObject({ statusCode: 200, statusDescription: '200 OK', multiValueHeaders: { 'content-type': ['application/json'] } });
    expect(multi).not.toHaveProperty('headers');
    const refused = await lambda.invoke(albEvent({ name: 'bad', method: 'GET', path: '/healthz', headers: { host: 'a b' } }, true, false));
    expect(refused).toMatchObject({ statusCode: 400, statusDescription: '400 Bad Request', multiValueHeaders: { 'content-type': ['application/json'] } });
  });

  it('reports readiness like the Node server', async () => {
    const result = await lambda.invoke(functionUrlEvent({ name: 'readyz', method: 'GET', path: '/readyz' }, false));
    expect(comparable(resultReply(result))).toEqual(comparable(reference.readyz));
  });

  it('answers an event that is not an HTTP request with 400 and keeps serving', async () => {
    const result = await lambda.invoke({ source: 'aws.events', 'detail-type': 'Scheduled Event' });
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body!).message).toMatch(/payload format 2\.0/);
    const again = await lambda.invoke(functionUrlEvent(cases[0], false));
    expect(resultReply(again)).toEqual(reference.replies[0]);
  });

  it('reads a plain body as its UTF-8 bytes would read: a lone surrogate, a byte-order mark', async () => {
    const sample = JSON.parse(cases[0].body!) as { request: { uid: string } };
    sample.request.uid = 'SURROGATE'; // the reply repeats the uid
    const review = JSON.stringify(sample);
    // Raw characters, not JSON escapes: the review text itself is not well-formed UTF-16.
    for (const text of [review.replace('SURROGATE', 'a\ud800b'), '\ufeff' + review]) {
      const plain = await lambda.invoke(functionUrlEvent({ name: 'text', method: 'POST', path: '/mutate', body: text, headers: { 'content-type': 'application/json' } }, false));
      const encoded = await lambda.invoke(functionUrlEvent({ name: 'bytes', method: 'POST', path: '/mutate', body: text, headers: { 'content-type': 'application/json' } }, true));
      expect(plain.statusCode).toBe(200);
      expect(resultReply(plain)).toEqual(resultReply(encoded));
      expect((resultReply(plain).body as { response: { uid: string } }).response.uid).not.toMatch(/\ud800/);
    }
  });

  it('says what is wrong with a refused event, logs its request line and counts it, as the Node server does', async () => {
    const base = functionUrlEvent(cases[0], false) as { headers: Record<string, string>; requestContext: { http: { method: string } } };
    const badMethod = { ...base, requestContext: { ...base.requestContext, http: { ...base.requestContext.http, method: 'PO ST' } } };
    const badHeader = { ...base, headers: { ...base.headers, 'x-note': 'a\r\nb' } };
    const replies = [await lambda.invoke(badMethod), await lambda.invoke(badHeader)];
    expect(replies.map((r) => r.statusCode)).toEqual([400, 400]);
    expect(JSON.parse(replies[0].body!).message).toBe('not an HTTP request: requestContext.http.method is not an HTTP method');
    expect(JSON.parse(replies[1].body!).message).toMatch(/^not an HTTP request: its header "x-note" is not a valid HTTP field/);
    await waitFor('the refused requests logged', () => lambda.logs.filter((l) => l.msg === 'request' && l.status === 400 && String(l.message).startsWith('not an HTTP request')).length >= 2);
    expect(lambda.logs).toContainEqual(expect.objectContaining({ msg: 'request', method: 'PO ST', path: '/mutate', status: 400 }));
    const metrics = await lambda.invoke(functionUrlEvent({ name: 'metrics', method: 'GET', path: '/metrics' }, false));
    expect(Number(/^amender_http_requests_total\{(?=[^}]*route="malformed")(?=[^}]*code="400")[^}]*\} (\d+)$/m.exec(metrics.body!)?.[1])).toBeGreaterThanOrEqual(2);
  });

  it('answers a body marked base64 that is not base64 with 400 and keeps serving', async () => {
    const result = await lambda.invoke({ ...functionUrlEvent(cases[0], false), body: '{not base64!}', isBase64Encoded: true });
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body!).message).toMatch(/isBase64Encoded but is not valid base64/);
    expect(resultReply(await lambda.invoke(functionUrlEvent(cases[0], true)))).toEqual(reference.replies[0]);
  });

  it('answers a review with a non-ASCII header value as the Node server does (AWS hands such bytes over decoded as UTF-8)', async () => {
    // A proxy in front (Cloudflare's cf-ipcity) sends UTF-8; U+012B is no character a Headers value can hold.
    const headers = { ...cases[0].headers, 'cf-ipcity': 'Srīperumbūdūr' };
    for (const event of [functionUrlEvent({ ...cases[0], headers }, false), albEvent({ ...cases[0], headers }, true, false), restApiEvent({ ...cases[0], headers }, false)]) {
      expect(resultReply(await lambda.invoke(event))).toEqual(reference.replies[0]);
    }
    // A control character is still no header value.
    const bad = await lambda.invoke(functionUrlEvent({ ...cases[0], headers: { ...cases[0].headers, 'cf-ipcity': 'Sr\u012b\u0000' } }, false));
    expect(bad.statusCode).toBe(400);
  });
});

describe('Lambda bundle with policies in S3', () => {
  let s3: TestS3;
  let folder: { dir: string; dispose: () => void };
  let lambda: LambdaProcess | undefined;
  let reference: { replies: HttpReply[]; readyz: HttpReply };
  const files = corpusPolicyFiles();

  beforeAll(async () => {
    s3 = await startS3();
    for (const f of files) await s3.put(`corpus/${f.name}`, f.text);
    folder = policyFolder(files);
    reference = await nodeReference(cases, `file://${folder.dir}`);
  });
  afterAll(async () => {
    await lambda?.stop();
    await s3?.dispose();
    folder?.dispose();
  });

  const s3Env = (extra: Record<string, string> = {}) => ({
    AMENDER_POLICY_SOURCES: 's3://policies/corpus',
    AMENDER_S3_ENDPOINT: s3.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    ...extra,
  });

  it('answers every call like the Node server reading the same files', async () => {
    lambda = await startLambda(s3Env({ AMENDER_REFRESH_SECONDS: '1' }));
    expect(reference.replies[1].status).toBe(200);
    expect(patchOf(reference.replies[1].body as { response?: { patch?: string } }).length).toBeGreaterThan(0); // the Kyverno policy acted
    for (const [i, c] of cases.entries()) {
      const result = await lambda.invoke(functionUrlEvent(c, i % 2 === 0));
      expect(resultReply(result), c.name).toEqual(reference.replies[i]);
    }
    const ready = resultReply(await lambda.invoke(functionUrlEvent({ name: 'readyz', method: 'GET', path: '/readyz' }, false)));
    expect(ready.status).toBe(200);
    expect((ready.body as { counts: unknown }).counts).toEqual((reference.readyz.body as { counts: unknown }).counts);
    expect((ready.body as { source: string }).source).toBe('s3://policies/corpus');
  });

  it('picks up a changed set on a later warm invocation (refresh across invocations)', async () => {
    expect(lambda).toBeDefined();
    const labelled = (reply: HttpReply) =>
      patchOf(reply.body as { response?: { patch?: string } }).some((op) => (op as { path?: string }).path === '/metadata/labels/rolled-out');
    expect(labelled(resultReply(await lambda!.invoke(functionUrlEvent(cases[0], false))))).toBe(false);
    await s3.put('corpus/zz-rollout.yaml', labelPolicy('zz-rollout', 'rolled-out', 'yes'));
    // The set is 1 s old at most; an invocation after that starts the refresh, and a later one sees it.
    let seen = false;
    for (let attempt = 0; attempt < 20 && !seen; attempt++) {
      await new Promise((r) => setTimeout(r, 300));
      seen = labelled(resultReply(await lambda!.invoke(functionUrlEvent(cases[0], false))));
    }
    expect(seen).toBe(true);
    expect(lambda!.logs.filter((l) => l.msg === 'policy set applied').length).toBe(2);
    await s3.remove('corpus/zz-rollout.yaml');
  });

  it('storage down at init: answers 503 and not ready, then loads once storage is back (retried at most every 5 s)', async () => {
    await s3.stop();
    const cold = await startLambda(s3Env({ AMENDER_REFRESH_SECONDS: '600' }));
    try {
      const down = await cold.invoke(functionUrlEvent(cases[0], false));
      expect(down.statusCode).toBe(503);
      const ready = resultReply(await cold.invoke(functionUrlEvent({ name: 'readyz', method: 'GET', path: '/readyz' }, false)));
      expect(ready.status).toBe(503);
      expect((ready.body as { sourceErrors: string[] }).sourceErrors[0]).toMatch(/^s3:\/\/policies\/corpus: cannot list s3:\/\/policies\/corpus\//);
      await s3.restart();
      let reply: HttpReply | undefined;
      for (let attempt = 0; attempt < 40; attempt++) {
        reply = resultReply(await cold.invoke(functionUrlEvent(cases[0], false)));
        if (reply.status === 200) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(reply).toEqual(reference.replies[0]);
      // One failed load at init, then at most one attempt per 5 s while answering 503 meanwhile.
      const failures = cold.logs.filter((l) => l.msg === 'policy sources unreadable').length;
      expect(failures).toBeGreaterThanOrEqual(1);
      expect(failures).toBeLessThanOrEqual(3);
    } finally {
      await cold.stop();
      await s3.restart();
    }
  });

  it('serves a cluster by its path secret and refuses a wrong one', async () => {
    const secret = 'correct-horse-battery-staple';
    const clustered = await startLambda(
      s3Env({
        AMENDER_POLICY_SOURCES: 'bundled',
        AMENDER_CLUSTERS: 'prod-eu',
        AMENDER_CLUSTER_PROD_EU_SOURCES: 's3://policies/corpus',
        AMENDER_CLUSTER_PROD_EU_SECRET_HASHES: await hashSecret(secret),
      }),
    );
    try {
      const viaPath = await clustered.invoke(functionUrlEvent({ ...cases[1], path: `/clusters/prod-eu/${secret}/mutate` }, true));
      expect(resultReply(viaPath)).toEqual(reference.replies[1]);
      const viaBearer = await clustered.invoke(httpApiEvent({ ...cases[1], path: '/clusters/prod-eu/mutate', headers: { ...cases[1].headers, authorization: `Bearer ${secret}` } }, 'prod', false));
      expect(resultReply(viaBearer)).toEqual(reference.replies[1]);
      const wrong = await clustered.invoke(functionUrlEvent({ ...cases[1], path: '/clusters/prod-eu/not-the-secret/mutate' }, false));
      expect(wrong.statusCode).toBe(401);
      const unknown = await clustered.invoke(functionUrlEvent({ ...cases[1], path: `/clusters/staging/${secret}/mutate` }, false));
      expect(unknown.statusCode).toBe(404);
      expect(JSON.stringify(clustered.logs)).not.toContain(secret);
    } finally {
      await clustered.stop();
    }
  });
});

describe('Lambda bundle body limit', () => {
  let lambda: LambdaProcess;
  beforeAll(async () => {
    lambda = await startLambda({ AMENDER_MAX_BODY_BYTES: '6000' });
  });
  afterAll(async () => {
    await lambda?.stop();
  });

  it('counts a plain body in UTF-8 bytes, not characters, when no Content-Length says it', async () => {
    const sample = JSON.parse(cases[0].body!) as { request: { object: { metadata: { annotations?: Record<string, string> } } } };
    const event = (note: string, base64: boolean) => {
      sample.request.object.metadata.annotations = { note };
      const e = functionUrlEvent({ name: 'limit', method: 'POST', path: '/mutate', body: JSON.stringify(sample), headers: { 'content-type': 'application/json' } }, base64);
      delete (e.headers as Record<string, string>)['content-length'];
      return e;
    };
    const base = JSON.stringify({ ...sample, request: { ...sample.request, object: { ...sample.request.object, metadata: { ...sample.request.object.metadata, annotations: { note: '' } } } } }).length;
    const n = Math.floor((6000 - base) * 0.75); // n characters of two bytes each: within 6000 characters, over 6000 bytes
    expect(base + n).toBeLessThanOrEqual(6000);
    expect(base + 2 * n).toBeGreaterThan(6000);
    for (const base64 of [false, true]) {
      const over = await lambda.invoke(event('é'.repeat(n), base64));
      expect(over.statusCode, `base64: ${base64}`).toBe(413);
      expect(JSON.parse(over.body!).message).toMatch(/exceeds the limit of 6000 bytes/);
      const within = await lambda.invoke(event('e'.repeat(n), base64));
      expect(within.statusCode, `base64: ${base64}`).toBe(200);
    }
  });
});

describe('Lambda bundle configuration errors', () => {
  it('fails the init with every problem', async () => {
    await expect(startLambda({ AMENDER_LOG_LEVEL: 'loud', AMENDER_MAX_BODY_BYTES: 'big' })).rejects.toThrow(
      /AMENDER_MAX_BODY_BYTES: expected an integer of at least 1, got "big"[\s\S]*AMENDER_LOG_LEVEL: expected debug, info, warn or error, got "loud"/,
    );
  });

  it("logs an AMENDER_ variable that no setting reads (a typo) with the nearest name, and starts all the same; S3's and a cluster's are settings", async () => {
    const lambda = await startLambda({ AMENDER_REFERSH_SECONDS: '5', AMENDER_S3_ENDPOINT: 'http://127.0.0.1:9', AMENDER_CLUSTERS: 'a', AMENDER_CLUSTER_A_SOURCES: 'bundled', AMENDER_CLUSTER_A_SECRET_HASHES: await hashSecret('s') });
    try {
      expect(lambda.logs.filter((l) => l.msg === 'unknown setting')).toEqual([
        expect.objectContaining({ level: 'warn', warning: 'AMENDER_REFERSH_SECONDS is set but is no setting of this server: ignored (did you mean AMENDER_REFRESH_SECONDS?)' }),
      ]);
      expect((await lambda.invoke(functionUrlEvent({ name: 'healthz', method: 'GET', path: '/healthz' }, false))).statusCode).toBe(200);
    } finally {
      await lambda.stop();
    }
  });

  it('names a source that Lambda cannot serve', async () => {
    await expect(startLambda({ AMENDER_POLICY_SOURCES: 'r2://POLICIES/prod' })).rejects.toThrow(
      'policy source r2://POLICIES/prod: r2:// sources are not available on AWS Lambda (available: bundled, file://, s3://)',
    );
  });
});
