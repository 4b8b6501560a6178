/**
 * Kyverno's CEL random library (kyverno/sdk extensions/cel/libs/random) in a MutatingPolicy, through
 * answerReview: `random(pattern)` / `random.random(pattern)` give a string the pattern matches (goregen,
 * shared with JMESPath's `random`), `random()` / `random.random()` one of `[0-9a-z]{8}`, each evaluation
 * draws anew, an invalid pattern is an error with Go's regexp message (the failurePolicy decides), and a
 * MutatingAdmissionPolicy keeps the API server's environment, where `random` does not exist.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { applyPatch, decodePatch } from '../../src/jsonpatch/index.js';
import { answerReview } from '../../src/server/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { k: 'v' } };
const RULES = '{resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}';

const policy = (expression: string, failurePolicy = 'Fail') => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: rnd}
spec:
  failurePolicy: ${failurePolicy}
  matchConstraints: ${RULES}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: '${expression}'
`;

async function review(yaml: string): Promise<{ allowed: boolean; message?: string; object: JsonObject }> {
  const set = policySetFrom(yaml);
  expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
  const answer = await answerReview(reviewOf(CONFIGMAP) as JsonValue, set);
  if (answer.status !== 200) throw new Error(`status ${answer.status}`);
  const response = answer.body.response as { allowed: boolean; patch?: string; status?: { message?: string } };
  if (!response.allowed || !response.patch) return { allowed: response.allowed, message: response.status?.message, object: CONFIGMAP };
  const decoded = decodePatch(JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as JsonValue[]);
  if (!decoded.ok) throw new Error('undecodable patch');
  const applied = applyPatch(CONFIGMAP as JsonValue, decoded.patch);
  if (!applied.ok) throw new Error('patch does not apply');
  return { allowed: true, object: applied.doc as JsonObject };
}

const LABELS = 'Object{metadata: Object.metadata{labels: {"a": random("[a-f]{6}-[0-9]{2,3}"), "b": random(), "c": random.random("x(ab|cd)[[:digit:]]"), "d": random.random(), "e": random("")}}}';

describe('Kyverno CEL random in a MutatingPolicy', () => {
  it('generates strings the pattern matches, random() from [0-9a-z]{8}, with and without the random. prefix', async () => {
    const r = await review(policy(LABELS));
    expect(r.allowed, r.message).toBe(true);
    const labels = (r.object.metadata as JsonObject).labels as Record<string, string>;
    expect(labels.a).toMatch(/^[a-f]{6}-[0-9]{2,3}$/);
    expect(labels.b).toMatch(/^[0-9a-z]{8}$/);
    expect(labels.c).toMatch(/^x(ab|cd)[0-9]$/);
    expect(labels.d).toMatch(/^[0-9a-z]{8}$/);
    expect(labels.e).toBe('');
  });

  it('draws anew for each review (a call with a constant pattern is not folded into a constant)', async () => {
    const yaml = policy('Object{metadata: Object.metadata{labels: {"id": random("[a-z]{16}")}}}');
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) seen.add(String(((await review(yaml)).object.metadata as JsonObject & { labels: JsonObject }).labels.id));
    expect(seen.size).toBeGreaterThan(1);
  });

  it("fails the policy with Go's regexp message for an invalid pattern: denied under Fail, unchanged under Ignore", async () => {
    const bad = 'Object{metadata: Object.metadata{labels: {"a": random("[a-")}}}';
    const fail = await review(policy(bad));
    expect(fail.allowed).toBe(false);
    expect(fail.message).toContain('error parsing regexp: missing closing ]: `[a-`');
    const ignore = await review(policy(bad, 'Ignore'));
    expect(ignore.allowed).toBe(true);
    expect((ignore.object.metadata as JsonObject).labels).toBeUndefined();
  });

  it('does not exist for a MutatingAdmissionPolicy (the API server environment)', () => {
    const set = policySetFrom(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: rnd}
spec:
  reinvocationPolicy: Never
  matchConstraints: ${RULES}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": random()}}}'}
`);
    expect(set.problems.map((p) => `${p.path}: ${p.message}`).join('\n')).toMatch(/spec\.mutations\[0\]\.applyConfiguration\.expression: .*random/);
  });
});
