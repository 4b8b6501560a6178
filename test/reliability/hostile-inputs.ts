/**
 * The hostile AdmissionReview bodies of the reliability sweeps (the built Node server's in
 * hostile-reviews.test.ts, the Lambda handler's and the Worker's in lambda-hostile / workers-hostile), the
 * answer each must get, and the check that a 200 reply's patch applies to the review's object.
 */
import { expect } from 'vitest';
import { parseJson, type JsonValue } from '../../src/json/index.js';
import { applyPatch, type Operation } from '../../src/jsonpatch/index.js';

export type Obj = Record<string, any>;

/** The uid of every review here. */
export const HOSTILE_UID = 'hostile-1';

export function podReview(object: JsonValue, extra: Obj = {}): Obj {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: HOSTILE_UID,
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

export const pod = (extra: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx:1' }] },
  ...extra,
});

/** `{"a":{"a":…}}` or `[[…]]` nested `depth` levels. */
export const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
export const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

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

export const REVIEW = JSON.stringify(podReview(pod()));

/** Bodies given as text (or bytes) and what kind of answer each must get. */
export const HOSTILE_BODIES: [string, string | Buffer, 200 | 400][] = [
  ['objects nested 100,000 deep in object', REVIEW.replace('"labels":', `"x":${deepObject(100_000)},"labels":`), 400],
  ['arrays nested 10,000 deep in oldObject', JSON.stringify(podReview(pod(), { operation: 'UPDATE', oldObject: '@' })).replace('"@"', deepArray(10_000)), 400],
  ['nesting at the limit in userInfo.extra', REVIEW.replace('"groups":["dev"]', `"extra":{"k":[${deepArray(990)}]}`), 400],
  ['nesting just inside the limit in options', JSON.stringify(podReview(pod(), { options: '@' })).replace('"@"', deepObject(990)), 200],
  ['__proto__ / constructor / prototype keys', JSON.stringify(podReview('@' as JsonValue)).replace('"@"', protoKeys()), 200],
  ['duplicate keys', REVIEW.replace('"metadata":{', '"metadata":{"name":"first","labels":{"app":"x"},'), 200],
  ['-0, 2^53+1 and 1.0', REVIEW.replace('"spec":{', '"spec":{"x":-0,"y":9007199254740993,"z":1.0,"v":1e-400,'), 200],
  // Past the double range: Go's encoding/json refuses it (README, "Numbers").
  ['1e400', REVIEW.replace('"spec":{', '"spec":{"priority":1e400,'), 400],
  ['-1e400', REVIEW.replace('"spec":{', '"spec":{"w":-1e400,'), 400],
  ['an integer of 400 digits', REVIEW.replace('"spec":{', `"spec":{"n":${'9'.repeat(400)},`), 400],
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
export function applyReply(reply: Obj, body: string | Buffer): unknown {
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

/** A review of `bytes` UTF-8 bytes exactly (an annotation pads it), answered 200 when within the limit. */
export function reviewOfSize(bytes: number): string {
  const empty = JSON.stringify(podReview(pod({ metadata: { name: 'p', namespace: 'default', labels: { app: 'web' }, annotations: { pad: '' } } })));
  const missing = bytes - Buffer.byteLength(empty);
  if (missing < 0) throw new Error(`a review cannot be as small as ${bytes} bytes`);
  return empty.replace('"pad":""', `"pad":"${'x'.repeat(missing)}"`);
}

/**
 * Checks an answer to anything: a 200 AdmissionReview for `uid` (with `review`, its patch applies), or a
 * 4xx/5xx with a JSON body (a Kubernetes Status for the app's own refusals). `label` names the case.
 */
export function expectWellFormed(label: string, status: number, contentType: string | null, text: string, review?: string | Buffer): Obj | undefined {
  expect(Number.isInteger(status) && status >= 200 && status <= 599, `${label}: status ${status}`).toBe(true);
  if (status === 204 || text === '') return undefined;
  let body: Obj;
  try {
    body = JSON.parse(text) as Obj;
  } catch {
    // Only the metrics text is not JSON.
    expect(contentType, `${label}: ${text.slice(0, 200)}`).toMatch(/^text\/plain/);
    return undefined;
  }
  if (status >= 400) {
    expect(contentType, label).toMatch(/^application\/json/);
    expect(body, `${label}: ${text.slice(0, 300)}`).toMatchObject({ kind: 'Status', code: status });
    expect(typeof body.message, label).toBe('string');
  } else if (body.kind === 'AdmissionReview' && review !== undefined) {
    expect(body.response?.uid, label).toBe(HOSTILE_UID);
    applyReply(body, review);
  }
  return body;
}
