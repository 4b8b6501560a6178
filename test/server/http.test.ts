import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, fixedPolicySet, mutateHandler, type PolicySetState } from '../../src/server/index.js';
import { bundledPolicies, policySetFrom, reviewOf, startTestServer, type TestServer } from './helpers.js';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'shop' }, spec: { containers: [{ name: 'a', image: 'a:1' }] } };

async function post(url: string, body: string | Uint8Array, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

describe('bad input over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ policies: await bundledPolicies(), limits: { maxBodyBytes: 64 * 1024, bodyTimeoutMs: 300 } });
  });
  afterAll(() => t.close());

  const cases: [string, string, RegExp][] = [
    ['malformed JSON', '{"apiVersion": "admission.k8s.io/v1", ', /^malformed JSON: /],
    ['JSON too deep', '['.repeat(1001) + ']'.repeat(1001), /^malformed JSON: JSON nesting deeper than 1000 levels/],
    ['not an object', '[1, 2]', /^invalid AdmissionReview: AdmissionReview: expected a JSON object, got an array$/],
    ['no request', JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), /request: expected an object, got nothing$/],
    ['no uid', JSON.stringify(reviewOf(pod, { uid: undefined })), /request\.uid: expected a non-empty string, got nothing$/],
    ['wrong kind', JSON.stringify({ ...reviewOf(pod), kind: 'ConversionReview' }), /kind: expected "AdmissionReview", got the string "ConversionReview"$/],
    ['wrong apiVersion', JSON.stringify({ ...reviewOf(pod), apiVersion: 'admission.k8s.io/v2' }), /apiVersion: expected "admission.k8s.io\/v1" or "admission.k8s.io\/v1beta1"/],
    ['object of the wrong type', JSON.stringify(reviewOf(pod, { object: 'a pod' })), /request\.object: expected an object or null, got the string "a pod"$/],
    ['object a list', JSON.stringify(reviewOf(pod, { object: [pod] })), /request\.object: expected an object or null, got an array$/],
    ['resource of the wrong shape', JSON.stringify(reviewOf(pod, { resource: 'pods' })), /request\.resource: expected an object, got the string "pods"$/],
    ['empty body', '', /^empty request body: expected an AdmissionReview$/],
  ];
  for (const [name, body, message] of cases) {
    it(`answers 400 for ${name}`, async () => {
      const r = await post(`${t.url}/mutate`, body);
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      const status = r.json();
      expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 400, reason: 'BadRequest' });
      expect(status.message).toMatch(message);
    });
  }

  it('answers 400 for a body that is not UTF-8', async () => {
    const r = await post(`${t.url}/mutate`, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect(r.status).toBe(400);
    expect(r.json().message).toBe('request body is not valid UTF-8');
  });

  it('answers 413 for a declared Content-Length over the limit, without reading the body', async () => {
    const big = JSON.stringify(reviewOf({ ...pod, data: 'x'.repeat(70 * 1024) }));
    const r = await post(`${t.url}/mutate`, big);
    expect(r.status).toBe(413);
    expect(r.json()).toMatchObject({ code: 413, reason: 'RequestEntityTooLarge', message: 'request body exceeds the limit of 65536 bytes' });
  });

  it('answers 413 for a chunked body as soon as it passes the limit', async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // An endless body: only a reader that stops at the limit lets this request end.
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${t.url}/mutate`, {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
      signal: AbortSignal.timeout(5000),
    } as RequestInit).catch((err: Error) => err);
    // Depending on timing the client sees the 413 or a reset after it; the server must have answered.
    if (!(res instanceof Error)) expect(res.status).toBe(413);
    await new Promise((r) => setTimeout(r, 50));
    const log = t.logs.findLast((l) => l.path === '/mutate');
    expect(log).toMatchObject({ status: 413, outcome: 'too_large' });
    expect(sent).toBeLessThan(10 * 1024 * 1024);
  });

  it('answers 408 when the body stops arriving, instead of waiting forever', async () => {
    const { port } = new URL(t.url);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let data = '';
      socket.setTimeout(5000, () => reject(new Error('no answer')));
      socket.on('data', (d) => (data += d.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
      socket.write('POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n{"apiVersion":');
    });
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(reply).toContain('request body not received within 300 ms');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const r = await post(`${t.url}/mutate`, 'a=b', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(415);
    expect(r.json().reason).toBe('UnsupportedMediaType');
  });

  it('answers 405 with Allow for a wrong method, 404 for an unknown path', async () => {
    const get = await fetch(`${t.url}/mutate`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await get.json() as any).message).toBe('method GET is not allowed on /mutate; use POST');
    const del = await fetch(`${t.url}/readyz`, { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD');
    const missing = await fetch(`${t.url}/validate`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect((await missing.json()) as any).toMatchObject({ kind: 'Status', code: 404, message: 'no route for POST /validate' });
  });

  it('keeps __proto__ and constructor keys as data and pollutes nothing', async () => {
    const text = JSON.stringify(reviewOf(pod)).replace('"metadata":{', '"metadata":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},');
    const r = await post(`${t.url}/mutate`, text);
    expect(r.status).toBe(200);
    expect(r.json().response.uid).toBe('e911857d-c318-11e8-bbad-025000000001');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('still serves after all of that', async () => {
    const r = await fetch(`${t.url}/healthz`);
    expect(r.status).toBe(200);
    expect(await r.json() as any).toEqual({ status: 'ok' });
  });

  it('logs one JSON record per request', () => {
    expect(t.logs.length).toBeGreaterThan(10);
    for (const l of t.logs) {
      expect(l).toMatchObject({ level: expect.any(String), msg: 'request', method: expect.any(String), path: expect.any(String), status: expect.any(Number) });
      expect(typeof l.durationMs).toBe('number');
    }
    const bad = t.logs.find((l) => l.status === 400);
    expect(bad).toMatchObject({ outcome: 'invalid', message: expect.any(String) });
  });
});

describe('readiness and metrics', () => {
  it('is not ready until a policy set is loaded', async () => {
    const t = await startTestServer({ policies: () => ({ source: 'file:///nowhere', sourceErrors: ['file:///nowhere: no such file or folder'] }) });
    try {
      const r = await fetch(`${t.url}/readyz`);
      expect(r.status).toBe(503);
      expect(await r.json() as any).toEqual({
        ready: false,
        source: 'file:///nowhere',
        message: 'no policy set is loaded yet',
        sourceErrors: ['file:///nowhere: no such file or folder'],
      });
      const review = await fetch(`${t.url}/mutate`, { method: 'POST', body: JSON.stringify(reviewOf(pod)), headers: { 'content-type': 'application/json' } });
      expect(review.status).toBe(503);
      expect(((await review.json()) as any).message).toBe('no policy set is loaded yet');
    } finally {
      await t.close();
    }
  });

  it('reports counts and the problems of a set with a broken policy', async () => {
    const set = policySetFrom(
      `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]}
  failurePolicy: Sometimes
  mutations: []
---
apiVersion: v1
kind: ConfigMap
metadata: {name: params, namespace: default}
data: {a: b}
`,
      'broken.yaml',
    );
    const loadedAt = new Date('2026-12-01T10:00:00Z');
    const t = await startTestServer({ policies: fixedPolicySet(set, 'file:///policies', loadedAt) });
    try {
      const r = await fetch(`${t.url}/readyz`);
      expect(r.status).toBe(200);
      const body = (await r.json()) as any;
      expect(body).toMatchObject({ ready: true, source: 'file:///policies', loadedAt: '2026-12-01T10:00:00.000Z', sourceErrors: [] });
      expect(body.counts).toMatchObject({ params: 1 });
      expect(body.problems.length).toBeGreaterThan(0);
      expect(body.problems).toContainEqual(
        expect.objectContaining({ source: 'broken.yaml', index: 0, kind: 'MutatingAdmissionPolicy', name: 'broken', path: expect.stringContaining('failurePolicy') }),
      );
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toContain('amender_policyset_loaded 1\n');
      expect(metrics).toContain('amender_policyset_objects{kind="params"} 1\n');
      expect(metrics).toMatch(/amender_policyset_problems\{effect="(ignored|kept)"\} [1-9]/);
      expect(metrics).toContain(`amender_policyset_loaded_timestamp_seconds ${loadedAt.getTime() / 1000}\n`);
    } finally {
      await t.close();
    }
  });

  it('counts reviews by outcome, latency and HTTP codes in Prometheus text', async () => {
    const t = await startTestServer({ policies: await bundledPolicies() });
    try {
      const send = (body: string) => fetch(`${t.url}/mutate`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }).then((r) => r.text());
      await send('nope');
      await send('nope');
      await send(JSON.stringify(reviewOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' } })));
      await fetch(`${t.url}/nothing`);
      const res = await fetch(`${t.url}/metrics`);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await res.text();
      expect(text).toContain('# TYPE amender_reviews_total counter\n');
      expect(text).toContain('amender_reviews_total{outcome="invalid"} 2\n');
      expect(text).toContain('amender_reviews_total{outcome="allowed"} 1\n');
      expect(text).toContain('amender_review_duration_seconds_count 3\n');
      expect(text).toMatch(/amender_review_duration_seconds_bucket\{le="\+Inf"\} 3\n/);
      expect(text).toContain('amender_http_requests_total{code="400",route="/mutate"} 2\n');
      expect(text).toContain('amender_http_requests_total{code="404",route="unmatched"} 1\n');
      expect(text).toContain('amender_policyset_objects{kind="mutatingAdmissionPolicies"} 4\n');
      expect(text).toContain('# TYPE amender_cel_program_cache_hits_total counter\n');
      expect(text).toMatch(/\namender_cel_program_cache_misses_total \d+\n/);
      expect(text).toMatch(/\namender_cel_program_cache_capacity [1-9]\d*\n/);
    } finally {
      await t.close();
    }
  });
});

describe('policy set swaps', () => {
  it('reads the provider once per request, so a reload takes effect on the next request', async () => {
    const first = policySetFrom('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n');
    const second = policySetFrom('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: x}\n');
    let state: PolicySetState = { set: first, source: 's', sourceErrors: [] };
    const t = await startTestServer({ policies: () => state });
    try {
      expect(((await (await fetch(`${t.url}/readyz`)).json()) as any).counts.params).toBe(1);
      state = { set: second, source: 's', sourceErrors: ['s: unreachable (kept the last good set)'] };
      const body = (await (await fetch(`${t.url}/readyz`)).json()) as any;
      expect(body.counts.params).toBe(2);
      expect(body.sourceErrors).toEqual(['s: unreachable (kept the last good set)']);
      expect(await (await fetch(`${t.url}/metrics`)).text()).toContain('amender_policyset_source_errors 1\n');
    } finally {
      await t.close();
    }
  });
});

describe('routes added on the returned app', () => {
  it('serves a per-cluster mutate route with the same handler, metrics and logs', async () => {
    const empty = policySetFrom('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n');
    const amender = createApp({ policies: () => ({ source: 'default', sourceErrors: [] }) });
    amender.app.post('/clusters/:cluster/mutate', async (c, next) => (c.req.param('cluster') === 'prod' ? next() : c.json({ message: 'unknown cluster' }, 404)),
      mutateHandler(amender.mutateDeps, () => ({ set: empty, source: 'prod', sourceErrors: [] })));
    const send = (path: string) => amender.app.fetch(new Request(`http://x${path}`, { method: 'POST', body: JSON.stringify(reviewOf(pod)), headers: { 'content-type': 'application/json' } }));
    const ok = await send('/clusters/prod/mutate');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).response).toEqual({ uid: 'e911857d-c318-11e8-bbad-025000000001', allowed: true });
    expect((await send('/clusters/dev/mutate')).status).toBe(404);
    expect((await send('/mutate')).status).toBe(503);
    expect(amender.metrics.reviews.get({ outcome: 'allowed' })).toBe(1);
    expect(amender.metrics.httpRequests.get({ route: '/clusters/:cluster/mutate', code: '200' })).toBe(1);
  });
});
