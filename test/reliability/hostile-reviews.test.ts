/**
 * Hostile AdmissionReviews against the built Node server (dist/node/main.js) with the 50-policy set
 * (40 MutatingAdmissionPolicies, 10 Kyverno policies) and review workers: every body is answered with
 * 200 (a reply whose patch applies to the object under a strict RFC 6902 applier) or a 4xx Status, never a
 * 5xx, and the server keeps answering /healthz. An admission.k8s.io/v1beta1 review is answered like a v1
 * one, in v1beta1 (a webhook answers in the version it was sent); the CLI gives the same reply.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, type JsonValue } from '../../src/json/index.js';
import { applyPatch, type Operation } from '../../src/jsonpatch/index.js';
import { CLI_BIN, ROOT, ensureBuilt } from '../node/built.js';
import { waitFor, type Running } from '../node/bundle.js';
import { rawExchange, statusOf } from './raw-http.js';
import { startReady } from './started.js';

type Obj = Record<string, any>;

function podReview(object: JsonValue, extra: Obj = {}): Obj {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'hostile-1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'alice', groups: ['dev'] },
      object,
      ...extra,
    },
  };
}

const pod = (extra: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx:1' }] },
  ...extra,
});

/** `{"a":{"a":…}}` or `[[…]]` nested `depth` levels. */
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Object keys that name JavaScript's own members, at every place a policy may read a key. */
function protoKeys(): string {
  const text = JSON.stringify(
    pod({
      metadata: { name: 'p', namespace: 'default', labels: { app: 'web', KEY1: 'x' }, annotations: { KEY2: 'y' } },
      spec: { containers: [{ name: 'KEY3', image: 'a' }, { name: 'KEY4', image: 'b' }, { name: 'KEY3', image: 'dup' }], KEY5: { KEY6: null } },
    }),
  );
  return text.replace('"KEY1"', '"__proto__"').replace('"KEY2"', '"constructor"').replace(/"KEY3"/g, '"__proto__"').replace('"KEY4"', '"prototype"').replace('"KEY5"', '"__proto__"').replace('"KEY6"', '"toString"');
}

const REVIEW = JSON.stringify(podReview(pod()));
const JSON_TYPE = { 'content-type': 'application/json' };

/** Bodies given as text (or bytes) and what kind of answer each must get. */
const CASES: [string, string | Buffer, 200 | 400][] = [
  ['objects nested 100,000 deep in object', REVIEW.replace('"labels":', `"x":${deepObject(100_000)},"labels":`), 400],
  ['arrays nested 10,000 deep in oldObject', JSON.stringify(podReview(pod(), { operation: 'UPDATE', oldObject: '@' })).replace('"@"', deepArray(10_000)), 400],
  ['nesting at the limit in userInfo.extra', REVIEW.replace('"groups":["dev"]', `"extra":{"k":[${deepArray(990)}]}`), 400],
  ['nesting just inside the limit in options', JSON.stringify(podReview(pod(), { options: '@' })).replace('"@"', deepObject(990)), 200],
  ['__proto__ / constructor / prototype keys', JSON.stringify(podReview('@' as JsonValue)).replace('"@"', protoKeys()), 200],
  ['duplicate keys', REVIEW.replace('"metadata":{', '"metadata":{"name":"first","labels":{"app":"x"},'), 200],
  ['1e400, -0, 2^53+1 and 1.0', REVIEW.replace('"spec":{', '"spec":{"priority":1e400,"x":-0,"y":9007199254740993,"z":1.0,"w":-1e400,'), 200],
  ['lone surrogates in names and keys', REVIEW.replace('"name":"app"', '"name":"\\ud800app"').replace('"labels":{', '"labels":{"\\udfff":"\\ud800",'), 200],
  ['a byte-order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(REVIEW)]), 200],
  ['invalid UTF-8', Buffer.concat([Buffer.from(REVIEW.slice(0, 40)), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(REVIEW.slice(40))]), 400],
  ['kind a number, metadata a list, containers an object, label values numbers', JSON.stringify(podReview({ apiVersion: 'v1', kind: 7, metadata: [{ name: 'p' }], spec: { containers: { name: 'app' } } })), 200],
  ['label values not strings', JSON.stringify(podReview(pod({ metadata: { name: 'p', labels: { app: 5, other: null, list: ['a'] } } }))), 200],
  ['containers of every wrong type', JSON.stringify(podReview(pod({ spec: { containers: [null, 1, 'c', [], { name: 7 }, { name: 'ok', env: 'x', image: {} }] } }))), 200],
  ['no request.uid', JSON.stringify(podReview(pod(), { uid: undefined })), 400],
  ['DELETE with a null object', JSON.stringify(podReview(null, { operation: 'DELETE', oldObject: pod() })), 200],
  ['DELETE with neither object', JSON.stringify(podReview(null, { operation: 'DELETE', oldObject: null })), 200],
  ['UPDATE whose oldObject is of another kind', JSON.stringify(podReview(pod(), { operation: 'UPDATE', oldObject: { kind: 'Secret', data: [1] } })), 200],
];

/** A 200 reply's JSON Patch applied to the review's object under a strict RFC 6902 applier (undefined: no patch). */
function applyReply(reply: Obj, body: string | Buffer): unknown {
  const patch = reply.response?.patch;
  if (patch === undefined) return undefined;
  expect(reply.response.patchType).toBe('JSONPatch');
  const ops = JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as Operation[];
  const text = (typeof body === 'string' ? body : body.toString('utf8')).replace(/^\uFEFF/, '');
  const object = (parseJson(text) as Obj).request.object as JsonValue;
  const result = applyPatch(object, ops, 'rfc6902');
  expect(result.ok, JSON.stringify(ops).slice(0, 500)).toBe(true);
  return result.ok ? result.doc : undefined;
}

describe('hostile reviews against the built server', () => {
  let server: Running;
  beforeAll(async () => {
    ensureBuilt();
    server = await startReady({ AMENDER_POLICY_SOURCES: `file://${ROOT}bench/fixtures/policies-50`, AMENDER_WORKERS: '2' });
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  it('answers each with 200 or a 4xx Status, never a 5xx, and /healthz stays up', async () => {
    for (const [name, body, expected] of CASES) {
      const res = await fetch(`${server.url}/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(20_000) });
      const reply = (await res.json()) as Obj;
      expect(res.status, `${name}: ${JSON.stringify(reply).slice(0, 300)}`).toBe(expected);
      if (expected === 200) {
        expect(reply.response.uid, name).toBe('hostile-1');
        applyReply(reply, body);
      } else {
        expect(reply).toMatchObject({ kind: 'Status', code: 400 });
      }
      expect((await fetch(`${server.url}/healthz`)).status, name).toBe(200);
    }
    // Log lines are written in batches (src/adapters/node-log.ts): wait for every review's.
    const reviews = () => server.lines.filter((l) => l.msg === 'request' && l.path === '/mutate');
    await waitFor('a log line per review', () => reviews().length >= CASES.length);
    expect(reviews().filter((l) => Number(l.status) >= 500)).toEqual([]);
  });

  it('answers a chunked review as it answers one with a Content-Length', async () => {
    const port = Number(new URL(server.url).port);
    const chunks = REVIEW.match(/.{1,37}/gs)!.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('');
    const reply = await rawExchange(port, `POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunks}0\r\n\r\n`);
    expect(statusOf(reply)).toBe(200);
    const chunked = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as Obj;
    const plain = (await (await fetch(`${server.url}/mutate`, { method: 'POST', headers: JSON_TYPE, body: REVIEW })).json()) as Obj;
    expect(chunked).toEqual(plain);
  });

  it('answers an admission.k8s.io/v1beta1 review in v1beta1, with the patch a v1 review gets', async () => {
    const v1 = (await (await fetch(`${server.url}/mutate`, { method: 'POST', headers: JSON_TYPE, body: REVIEW })).json()) as Obj;
    const res = await fetch(`${server.url}/mutate`, { method: 'POST', headers: JSON_TYPE, body: REVIEW.replace('"admission.k8s.io/v1"', '"admission.k8s.io/v1beta1"') });
    expect(res.status).toBe(200);
    const v1beta1 = (await res.json()) as Obj;
    expect(v1.response.patch).toBeDefined();
    expect(v1beta1).toEqual({ ...v1, apiVersion: 'admission.k8s.io/v1beta1' });
    // Another version is still refused.
    const v2 = await fetch(`${server.url}/mutate`, { method: 'POST', headers: JSON_TYPE, body: REVIEW.replace('"admission.k8s.io/v1"', '"admission.k8s.io/v2"') });
    expect(v2.status).toBe(400);
  });
});

describe('amender review', () => {
  it('answers a v1beta1 review in v1beta1, as the server does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amender-v1beta1-'));
    try {
      const input = join(dir, 'review.json');
      writeFileSync(input, REVIEW.replace('"admission.k8s.io/v1"', '"admission.k8s.io/v1beta1"'));
      const out = await new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [CLI_BIN, 'review', '--policies', `${ROOT}bench/fixtures/policies-50`, '--input', input], (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))),
      );
      const reply = JSON.parse(out) as Obj;
      expect(reply.apiVersion).toBe('admission.k8s.io/v1beta1');
      expect(reply.response).toMatchObject({ uid: 'hostile-1', allowed: true, patchType: 'JSONPatch' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
