/**
 * Kyverno MutatingPolicy conformance vectors (test/vectors/mpol, transcribed from Kyverno's chainsaw
 * tests; README there): each vector's policies (with the Namespaces its test creates) form a policy set,
 * each request goes as an AdmissionReview through `answerReview` (the webhook's in-process entry), and the
 * object as admitted (the reply's JSON Patch applied) must satisfy the chainsaw assertion, or, for
 * chainsaw `error` steps, must not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { applyPatch, decodePatch } from '../../src/jsonpatch/index.js';
import { answerReview } from '../../src/server/index.js';
import { chainsawMatches, firstDifference } from '../kyverno/helpers/compare.js';
import { ROOT } from '../node/built.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

interface MpolRequest {
  operation?: string;
  object: JsonObject;
  oldObject?: JsonObject;
  subResource?: string;
  userInfo?: JsonObject;
  expect: {
    patchedSubset?: JsonValue;
    patchedNotSubset?: JsonValue;
    allowed?: boolean;
    /** Operations the reply's patch must hold (Kyverno's integration tests check these). */
    patches?: JsonObject[];
    /** The reply must carry no patch. */
    noPatch?: boolean;
  };
}

interface MpolVector {
  name: string;
  source: string;
  policies: JsonObject[];
  requests: MpolRequest[];
}

const DIR = `${ROOT}test/vectors/mpol`;
const vectors: MpolVector[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => parseYaml(readFileSync(`${DIR}/${f}`, 'utf8')) as MpolVector);

interface Admitted {
  allowed: boolean;
  object: JsonValue;
  message?: string;
  /** The reply's patch, when it has one. */
  patch?: JsonValue[];
}

async function admit(vector: MpolVector, request: MpolRequest): Promise<Admitted> {
  const set = policySetFrom(vector.policies.map((p) => stringify(p)).join('---\n'), `${vector.name}.yaml`);
  expect(set.problems.filter((p) => p.effect === 'ignored'), 'the policies load').toEqual([]);
  const extra: Record<string, unknown> = { operation: request.operation ?? 'CREATE', oldObject: request.oldObject ?? null };
  if (request.userInfo) extra.userInfo = request.userInfo;
  if (request.subResource) extra.subResource = request.subResource;
  const answer = await answerReview(reviewOf(request.object, extra) as JsonValue, set);
  expect(answer.status).toBe(200);
  if (answer.status !== 200) throw new Error('unreachable');
  const response = answer.body.response as { allowed: boolean; patch?: string; status?: { message?: string } };
  if (!response.allowed) return { allowed: false, object: request.object, message: response.status?.message };
  if (!response.patch) return { allowed: true, object: request.object };
  const patch = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as JsonValue[];
  const decoded = decodePatch(patch);
  if (!decoded.ok) throw new Error('the reply holds an undecodable patch');
  const applied = applyPatch(request.object, decoded.patch);
  if (!applied.ok) throw new Error('the reply\'s patch does not apply');
  return { allowed: true, object: applied.doc, patch };
}

describe('Kyverno MutatingPolicy chainsaw vectors through answerReview', () => {
  it('has the vectors', () => expect(vectors.length).toBeGreaterThanOrEqual(8));

  for (const vector of vectors) {
    it.each(vector.requests.map((r, i) => [`${String(r.object.kind)}/${String((r.object.metadata as JsonObject).name)}`, i] as const))(`${vector.name}: %s`, async (_label, i) => {
      const request = vector.requests[i];
      const result = await admit(vector, request);
      expect(result.allowed, result.message).toBe(request.expect.allowed ?? true);
      const { patchedSubset, patchedNotSubset } = request.expect;
      if (patchedSubset !== undefined) expect(chainsawMatches(result.object, patchedSubset), firstDifference(result.object, patchedSubset)).toBe(true);
      if (patchedNotSubset !== undefined) expect(chainsawMatches(result.object, patchedNotSubset), 'the object must not match the error assertion').toBe(false);
      if (request.expect.noPatch) expect(result.patch, 'the reply carries no patch').toBeUndefined();
      for (const op of request.expect.patches ?? []) expect(result.patch, 'the reply\'s patch holds the operation').toContainEqual(op);
    });
  }
});
