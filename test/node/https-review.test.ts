/**
 * A review round trip the way a cluster does it: the built Node server on HTTPS with HTTP/2, its
 * certificate signed by a throwaway CA the client trusts (hostname verified), the API server's review in,
 * and a patch out that a strict RFC 6902 applier turns into exactly the expected Pod.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBase64Utf8 } from '../../src/admission/index.js';
import { applyPatch, decodePatch } from '../../src/jsonpatch/index.js';
import { diffJson } from '../../src/cli/diff.js';
import { h2Request } from './clients.js';
import { ROOT, ensureBuilt } from './built.js';
import { startBundle, type Running } from './bundle.js';
import { makeTestPki, type TestPki } from './tls.js';

let pki: TestPki;
let server: Running;
beforeAll(async () => {
  ensureBuilt();
  pki = makeTestPki();
  server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key` });
});
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exit;
  pki?.dispose();
});

describe('a review over HTTPS + HTTP/2, CA-verified', () => {
  it('answers the sample review with a patch that applies under strict RFC 6902 to the expected Pod', async () => {
    const port = new URL(server.url).port;
    const body = readFileSync(`${ROOT}test/fixtures/reviews/pod-create.json`, 'utf8');
    const reply = await h2Request(`https://localhost:${port}`, '/mutate', pki.ca, {
      body,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      timeoutMs: 10_000,
    });
    expect(reply.alpn).toBe('h2');
    expect(reply.status).toBe(200);
    const review = JSON.parse(reply.body);
    expect(review.apiVersion).toBe('admission.k8s.io/v1');
    expect(review.kind).toBe('AdmissionReview');
    expect(review.response).toMatchObject({ uid: 'b7a4e0a6-5d1f-4b8e-9c1a-2f3e4d5c6b7a', allowed: true, patchType: 'JSONPatch' });
    const patch = decodePatch(JSON.parse(decodeBase64Utf8(review.response.patch)), 'rfc6902');
    expect(patch.ok).toBe(true);
    if (!patch.ok) return;
    const applied = applyPatch(JSON.parse(body).request.object, patch.patch, 'rfc6902');
    expect(applied.ok).toBe(true);
    if (!applied.ok) return;
    const expected = JSON.parse(readFileSync(`${ROOT}test/fixtures/reviews/pod-create.expected.json`, 'utf8'));
    expect(diffJson(expected, applied.doc)).toEqual([]);
  });

});
