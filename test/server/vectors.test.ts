/**
 * The end-to-end MAP vectors (test/vectors/map/mutation and integration) through the HTTP endpoint's
 * handler: each vector becomes an AdmissionReview POSTed to the app's `/mutate`, and the reply is checked
 * as the API server would use it — the denial status, or the base64 patch applied with a strict RFC 6902
 * applier to the received object, compared normalized (the vectors' README) with the expected object.
 */
import { describe, expect, it } from 'vitest';
import { decodeBase64Utf8 } from '../../src/admission/index.js';
import { applyJsonPatch } from '../../src/jsonpatch/index.js';
import { buildPolicySet } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';
import { jsonDocumentOf, jsonTextOf, loadVectors } from '../map/helpers.js';
import { VECTOR_BUILD_OPTIONS, documents, dropPath, normalize, vectorReview } from '../fixtures/map-vectors.js';

const FILES = ['mutation/applyconfiguration.yaml', 'mutation/compilation.yaml', 'mutation/dispatcher.yaml', 'mutation/jsonpatch.yaml', 'mutation/plugin.yaml', 'mutation/objects.yaml', 'integration/e2e.yaml', 'integration/integration.yaml', 'integration/integration-v1beta1.yaml', 'integration/excluded.yaml', 'integration/extra.yaml'];

for (const file of FILES) {
  describe(`POST /mutate: ${file}`, () => {
    for (const v of loadVectors(file)) {
      it(v.name, async () => {
        const set = buildPolicySet(documents(v), VECTOR_BUILD_OPTIONS);
        const { app } = createApp({ policies: fixedPolicySet(set, v.name) });
        const body = vectorReview(v);
        const res = await app.fetch(new Request('http://amender/mutate', { method: 'POST', body: jsonTextOf(body), headers: { 'content-type': 'application/json' } }));
        expect(res.status).toBe(200);
        const reply = (await res.json()) as any;
        expect(reply.response.uid).toBe(body.request.uid);
        const e = v.expect;
        if (e.error !== undefined) {
          expect(reply.response.allowed).toBe(false);
          expect(reply.response.status.message).toContain(e.error);
          if (e.code) expect(reply.response.status.code).toBe(e.code);
          if (e.reason) expect(reply.response.status.reason).toBe(e.reason);
          expect(reply.response.patch).toBeUndefined();
          return;
        }
        expect(reply.response.allowed, JSON.stringify(reply.response.status)).toBe(true);
        if (e.unchanged) expect(reply.response.patch).toBeUndefined();
        let got: unknown = jsonDocumentOf(body.request.object);
        if (reply.response.patch !== undefined) {
          expect(reply.response.patchType).toBe('JSONPatch');
          const applied = applyJsonPatch(got as any, JSON.parse(decodeBase64Utf8(reply.response.patch)), 'rfc6902');
          expect(applied.ok, JSON.stringify(applied)).toBe(true);
          if (applied.ok) got = applied.doc;
        }
        let want: unknown = jsonDocumentOf(e.object);
        for (const path of e.defaultedFields ?? []) {
          want = dropPath(want, path);
          got = dropPath(got, path);
        }
        expect(normalize(got)).toEqual(normalize(want));
      });
    }
  });
}
