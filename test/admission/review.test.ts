import { describe, expect, it } from 'vitest';
import {
  allowReply,
  base64Portable,
  base64Utf8,
  decodeBase64Utf8,
  denyReply,
  validateReview,
} from '../../src/admission/index.js';
import { parseJson, type JsonValue } from '../../src/json/index.js';
import type { Operation } from '../../src/jsonpatch/index.js';

function review(request: Record<string, unknown> | undefined, top: Record<string, unknown> = {}): JsonValue {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', ...(request ? { request } : {}), ...top } as JsonValue;
}

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [] } };

function createRequest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uid: 'u-1',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: ['dev'] },
    object: pod,
    ...extra,
  };
}

function errorOf(value: JsonValue): string {
  const result = validateReview(value);
  if (result.ok) throw new Error('expected a validation error');
  return result.error.message;
}

describe('validateReview', () => {
  it('accepts a complete CREATE review and returns the typed request', () => {
    const result = validateReview(review(createRequest({ namespace: 'default', name: 'p', dryRun: false })));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.request).toMatchObject({ uid: 'u-1', operation: 'CREATE', namespace: 'default', name: 'p', dryRun: false });
    expect(result.request.object).toBe(pod);
    expect(result.request.userInfo).toEqual({ username: 'alice', groups: ['dev'] });
  });

  it('names the field and what it got for each kind of bad input', () => {
    expect(errorOf([])).toBe('AdmissionReview: expected a JSON object, got an array');
    expect(errorOf('x')).toBe('AdmissionReview: expected a JSON object, got the string "x"');
    expect(errorOf(review(createRequest(), { apiVersion: 'admission.k8s.io/v2' }))).toBe(
      'apiVersion: expected "admission.k8s.io/v1" or "admission.k8s.io/v1beta1", got the string "admission.k8s.io/v2"',
    );
    expect(errorOf(review(createRequest(), { kind: 'Pod' }))).toBe('kind: expected "AdmissionReview", got the string "Pod"');
    expect(errorOf(review(undefined))).toBe('request: expected an object, got nothing');
    expect(errorOf(review(createRequest({ uid: undefined })))).toBe('request.uid: expected a non-empty string, got nothing');
    expect(errorOf(review(createRequest({ uid: 7 })))).toBe('request.uid: expected a non-empty string, got the number 7');
    expect(errorOf(review(createRequest({ operation: 'PATCH' })))).toBe(
      'request.operation: expected one of CREATE, UPDATE, DELETE, CONNECT, got the string "PATCH"',
    );
    expect(errorOf(review(createRequest({ kind: 'Pod' })))).toBe('request.kind: expected an object, got the string "Pod"');
    expect(errorOf(review(createRequest({ kind: { group: '', version: 'v1' } })))).toBe(
      'request.kind.kind: expected a non-empty string, got nothing',
    );
    expect(errorOf(review(createRequest({ resource: { group: 1, version: 'v1', resource: 'pods' } })))).toBe(
      'request.resource.group: expected a string, got the number 1',
    );
    expect(errorOf(review(createRequest({ object: [pod] })))).toBe('request.object: expected an object or null, got an array');
    expect(errorOf(review(createRequest({ object: 'pod' })))).toBe(
      'request.object: expected an object or null, got the string "pod"',
    );
    expect(errorOf(review(createRequest({ object: null })))).toBe('request.object: expected an object for a CREATE request, got null');
    expect(errorOf(review(createRequest({ oldObject: 3 })))).toBe('request.oldObject: expected an object or null, got the number 3');
    expect(errorOf(review(createRequest({ namespace: 5 })))).toBe('request.namespace: expected a string, got the number 5');
    expect(errorOf(review(createRequest({ dryRun: 'yes' })))).toBe('request.dryRun: expected a boolean, got the string "yes"');
    expect(errorOf(review(createRequest({ userInfo: { groups: ['a', 2] } })))).toBe(
      'request.userInfo.groups[1]: expected a string, got the number 2',
    );
    expect(errorOf(review(createRequest({ userInfo: { extra: { 'example.com/scopes': 'a' } } })))).toBe(
      'request.userInfo.extra.example.com/scopes: expected a list of strings, got the string "a"',
    );
    // A key of the review is quoted when it is not plain, and cut when long: the message stays short.
    expect(errorOf(review(createRequest({ userInfo: { extra: { 'a\nb': [1] } } })))).toBe('request.userInfo.extra."a\\nb"[0]: expected a string, got the number 1');
    expect(errorOf(review(createRequest({ userInfo: { extra: { ['k'.repeat(1_000_000)]: 5 } } })))).toBe(
      `request.userInfo.extra."${'k'.repeat(60)}…": expected a list of strings, got the number 5`,
    );
    expect(errorOf(review(createRequest({ requestKind: { group: '', version: '', kind: 'Pod' } })))).toBe(
      'request.requestKind.version: expected a non-empty string, got the string ""',
    );
  });

  it('keeps the uid of an otherwise broken request so a caller can echo it', () => {
    const result = validateReview(review(createRequest({ operation: 'NOPE' })));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.uid).toBe('u-1');
  });

  it('accepts DELETE without an object and CONNECT with options, and a review without userInfo', () => {
    expect(validateReview(review(createRequest({ operation: 'DELETE', object: null, oldObject: pod }))).ok).toBe(true);
    expect(validateReview(review(createRequest({ operation: 'CONNECT', object: { kind: 'PodExecOptions' }, userInfo: undefined }))).ok).toBe(true);
  });

  it('treats __proto__ and constructor keys in documents and userInfo.extra as plain data', () => {
    const text =
      '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","kind":{"group":"","version":"v1","kind":"Pod"},' +
      '"resource":{"group":"","version":"v1","resource":"pods"},"operation":"CREATE",' +
      '"userInfo":{"extra":{"__proto__":["polluted"],"constructor":["c"]}},' +
      '"object":{"metadata":{"labels":{"__proto__":{"admin":true},"constructor":"x"}}}}}';
    const result = validateReview(parseJson(text));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const extra = result.request.userInfo.extra!;
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(Object.keys(extra)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(extra, '__proto__')?.value).toEqual(['polluted']);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('replies', () => {
  it('carries no patch when nothing changed', () => {
    expect(allowReply('u')).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u', allowed: true } });
  });

  it('encodes the patch as base64 JSON, non-ASCII and integers intact', () => {
    const patch: Operation[] = [
      { op: 'add', path: '/metadata/labels/caf\u00e9', value: 'na\u00efve \u{1F680}' },
      { op: 'replace', path: '/spec/replicas', value: 3 },
    ];
    const reply = allowReply('u', patch);
    expect(reply.response.patchType).toBe('JSONPatch');
    const decoded = decodeBase64Utf8(reply.response.patch!);
    expect(decoded).toBe(JSON.stringify(patch));
    expect(decoded).toContain('"value":3}');
  });

  it('writes the patch text exactly as JSON.stringify does, whatever the strings and shapes', () => {
    const patches: unknown[][] = [
      [{ op: 'add', path: '/metadata/labels/a', value: 'b' }, { op: 'remove', path: '/x' }],
      [{ op: 'add', path: '/a', value: 'quote " backslash \\ newline \n control \u0001' }],
      [{ op: 'add', path: '/a~1b', value: 'lone \ud800 and \udc00, pair \u{1F680}, separator \u2028' }],
      [{ op: 'replace', path: '/a/"', value: { nested: ['x', 1.5, null, true] } }, { op: 'add', path: '/b', value: -0 }],
      [{ path: '/reordered', op: 'add', value: 'x' }],
      [{ op: 'move', from: '/a', path: '/b' }, { op: 'add', path: '/c', value: undefined }],
      [Object.assign(Object.create({ value: 'inherited' }), { op: 'add', path: '/d' })],
      [null, { op: 'remove', path: '/e' }],
    ];
    for (const patch of patches) {
      expect(decodeBase64Utf8(allowReply('u', patch as Operation[]).response.patch!)).toBe(JSON.stringify(patch));
    }
  });

  it('encodes a large patch (past the String.fromCharCode slice size)', () => {
    const value = 'x'.repeat(200_000) + '\u00e9';
    const reply = allowReply('u', [{ op: 'add', path: '/a', value }]);
    expect(JSON.parse(decodeBase64Utf8(reply.response.patch!))[0].value).toBe(value);
  });

  it('encodes alike with Buffer (Node) and without it (the portable path of other platforms)', () => {
    // Around the length up to which Node's path reuses one buffer (16 KiB of three-byte characters).
    const texts = ['', 'a', 'ab', 'abc', 'caf\u00e9 \u{1F680} \u0000', 'y'.repeat(70_000) + '\u00ff'];
    for (const n of [5460, 5461, 5462]) texts.push('\u20ac'.repeat(n), '\u{1F680}'.repeat(n >> 1));
    for (const text of texts) {
      expect(base64Utf8(text)).toBe(base64Portable(text));
      expect(decodeBase64Utf8(base64Portable(text))).toBe(text);
    }
    // Lone surrogates are written as U+FFFD both ways.
    for (const text of ['lone \ud800 \udc00 end', '\u20ac'.repeat(5460) + '\ud83d', '\u20ac'.repeat(5461) + '\udc00']) {
      expect(base64Utf8(text)).toBe(base64Portable(text));
    }
  });

  it('carries warnings and audit annotations only when there are some', () => {
    const reply = allowReply('u', [], { warnings: ['w'], auditAnnotations: { 'kyverno-mutate': 'x' } });
    expect(reply.response).toEqual({ uid: 'u', allowed: true, warnings: ['w'], auditAnnotations: { 'kyverno-mutate': 'x' } });
    expect(denyReply('u', { code: 403, message: 'm' }, { warnings: [], auditAnnotations: {} }).response).toEqual({
      uid: 'u',
      allowed: false,
      status: { status: 'Failure', code: 403, message: 'm' },
    });
  });

  it('denies with the status as metav1.Status', () => {
    const reply = denyReply('u', { code: 403, reason: 'Invalid', message: 'no', details: { causes: [{ message: 'no' }] } });
    expect(reply.response).toEqual({
      uid: 'u',
      allowed: false,
      status: { status: 'Failure', code: 403, reason: 'Invalid', message: 'no', details: { causes: [{ message: 'no' }] } },
    });
  });
});
