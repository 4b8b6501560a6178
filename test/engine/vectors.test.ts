/**
 * The end-to-end MAP vectors (test/vectors/map/mutation, integration) through the engine's public API:
 * documents → buildPolicySet → evaluate. Objects are compared normalized as the vectors' README says;
 * the reply patch must turn the received object into the final one under a strict RFC 6902 applier.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/types.js';
import { evaluate, type EngineResult } from '../../src/engine/index.js';
import { applyPatch } from '../../src/jsonpatch/index.js';
import { buildPolicySet } from '../../src/policyset/index.js';
import { VECTOR_BUILD_OPTIONS, documents, dropPath, normalize } from '../fixtures/map-vectors.js';
import { jsonDocumentOf, loadVectors } from '../map/helpers.js';

const FILES = [
  'mutation/applyconfiguration.yaml',
  'mutation/compilation.yaml',
  'mutation/dispatcher.yaml',
  'mutation/jsonpatch.yaml',
  'mutation/plugin.yaml',
  'mutation/objects.yaml',
  'integration/e2e.yaml',
  'integration/integration.yaml',
  'integration/integration-v1beta1.yaml',
  'integration/excluded.yaml',
  'integration/extra.yaml',
];

function request(v: any): AdmissionRequest {
  const r = v.request;
  return {
    uid: 'vector',
    kind: r.kind,
    resource: r.resource,
    subResource: r.subResource ?? '',
    name: r.name ?? '',
    namespace: r.namespace ?? '',
    operation: r.operation,
    userInfo: r.userInfo ?? {},
    object: jsonDocumentOf(r.object) ?? null,
    oldObject: jsonDocumentOf(r.oldObject) ?? null,
    dryRun: r.dryRun ?? false,
  };
}

function expectObject(result: EngineResult, expected: any, defaulted: readonly string[], received: unknown): void {
  expect(result.allowed, JSON.stringify(!result.allowed && result.status)).toBe(true);
  if (!result.allowed) return;
  let want: unknown = jsonDocumentOf(expected);
  for (const path of defaulted) want = dropPath(want, path);
  let got: unknown = result.object;
  for (const path of defaulted) got = dropPath(got, path);
  expect(normalize(got)).toEqual(normalize(want));
  // The reply patch: strict RFC 6902 from the received object gives exactly the final object.
  const applied = applyPatch(received as any, result.patch, 'rfc6902');
  expect(applied.ok, JSON.stringify(applied)).toBe(true);
  if (applied.ok) expect(applied.doc).toEqual(result.object);
}

for (const file of FILES) {
  describe(file, () => {
    for (const v of loadVectors(file)) {
      it(v.name, async () => {
        const set = buildPolicySet(documents(v), VECTOR_BUILD_OPTIONS);
        const ignored = set.problems.filter((p) => p.effect === 'ignored');
        expect(ignored, JSON.stringify(ignored)).toEqual([]);
        const req = request(v);
        const snapshot = structuredClone(req);
        const result = await evaluate(set, req);
        expect(req).toEqual(snapshot); // inputs are never changed
        const e = v.expect;
        if (e.error !== undefined) {
          expect(result.allowed).toBe(false);
          if (result.allowed) return;
          expect(result.status.message).toContain(e.error);
          if (e.code) expect(result.status.code).toBe(e.code);
          if (e.reason) expect(result.status.reason).toBe(e.reason);
          if (e.messagePrefix) expect(result.status.message.startsWith(e.messagePrefix)).toBe(true);
          return;
        }
        expectObject(result, e.object, e.defaultedFields ?? [], req.object);
        if (e.unchanged) expect(result.allowed && result.patch).toEqual([]);
        if (e.singlePassObject) {
          const single = await evaluate(set, req, { reinvocation: false });
          expectObject(single, e.singlePassObject, e.defaultedFields ?? [], req.object);
        }
      });
    }
  });
}
