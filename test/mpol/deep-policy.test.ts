/**
 * A MutatingPolicy, MutatingAdmissionPolicy or binding nested deeper than a policy document may (1000
 * levels, the bound Amender's JSON reader holds, as for a ClusterPolicy: src/json/document-depth.ts),
 * given to the policy set builder as an object (a library caller's; no reader bounds it), is refused by an
 * explicit check naming the field, and the other documents load and run. Before, a variable expression or
 * the labels 5,000 levels deep made buildPolicySet itself throw "Maximum call stack size exceeded" (the
 * whole set lost), and a deep `status` or `spec.autogen` was kept unread.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { buildPolicySet, type SourceDocument } from '../../src/policyset/index.js';
import { answerReview } from '../../src/server/index.js';
import { reviewOf } from '../server/helpers.js';

const LIMIT = 1000;
const MESSAGE = `nests deeper than ${LIMIT} levels, the most a policy document may (counted from the document's top)`;

function nested(levels: number, leaf: JsonValue = 'x'): JsonValue {
  let value: JsonValue = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

const RULES = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] };
const label = (key: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {"${key}": "yes"}}}` } });

const mpol = (name: string, spec: JsonObject = {}, top: JsonObject = {}): JsonObject => ({
  apiVersion: 'policies.kyverno.io/v1',
  kind: 'MutatingPolicy',
  metadata: { name },
  spec: { matchConstraints: RULES, mutations: [label(name)], ...spec },
  ...top,
});
const map = (name: string, spec: JsonObject = {}, top: JsonObject = {}): JsonObject => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicy',
  metadata: { name },
  spec: { reinvocationPolicy: 'Never', matchConstraints: RULES, mutations: [label(name)], ...spec },
  ...top,
});
const binding = (name: string, policyName: string, top: JsonObject = {}): JsonObject => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName },
  ...top,
});

const OTHERS = [mpol('other-mpol'), map('other-map'), binding('other-map', 'other-map')];

function build(deep: JsonObject) {
  const documents: SourceDocument[] = [...OTHERS, deep].map((value, index) => ({ source: 'given', index, value }));
  return buildPolicySet([{ source: 'given', documents, problems: [] }]);
}

async function labelsAdded(set: ReturnType<typeof buildPolicySet>): Promise<JsonValue> {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } };
  const answer = await answerReview(reviewOf(cm) as JsonValue, set);
  const response = (answer.body as { response: { allowed: boolean; patch?: string } }).response;
  expect(response.allowed).toBe(true);
  const patch = JSON.parse(Buffer.from(response.patch ?? 'W10=', 'base64').toString('utf8')) as { path: string; value: JsonValue }[];
  return patch.find((op) => op.path === '/metadata/labels')?.value ?? null;
}

describe('a MutatingPolicy, MutatingAdmissionPolicy or binding nested past 1000 levels', () => {
  const cases: [string, JsonObject, string, string][] = [
    ['a MutatingPolicy variable', mpol('deep', { variables: [{ name: 'v', expression: nested(5000) }] }), 'MutatingPolicy', 'spec.variables[0].expression'],
    ['MutatingPolicy labels', mpol('deep', {}, { metadata: { name: 'deep', labels: nested(5000) } }), 'MutatingPolicy', 'metadata.labels'],
    ['a MutatingPolicy status', mpol('deep', {}, { status: nested(LIMIT) }), 'MutatingPolicy', 'status'],
    ['a MutatingPolicy autogen block', mpol('deep', { autogen: { podControllers: nested(5000) } }), 'MutatingPolicy', 'spec.autogen.podControllers'],
    ['a MutatingAdmissionPolicy variable', map('deep', { variables: [{ name: 'v', expression: nested(5000) }] }), 'MutatingAdmissionPolicy', 'spec.variables[0].expression'],
    ['MutatingAdmissionPolicy labels', map('deep', {}, { metadata: { name: 'deep', labels: nested(5000) } }), 'MutatingAdmissionPolicy', 'metadata.labels'],
    ['binding labels', binding('deep', 'other-map', { metadata: { name: 'deep', labels: nested(5000) } }), 'MutatingAdmissionPolicyBinding', 'metadata.labels'],
  ];
  for (const [what, deep, kind, path] of cases) {
    it(`refuses ${what} by its field; the other documents load and run`, async () => {
      const set = build(deep);
      expect(set.problems).toEqual([{ source: 'given', index: 3, kind, name: 'deep', path, message: MESSAGE, effect: 'ignored' }]);
      expect(set.counts.kyvernoMutatingPolicies).toBe(1);
      expect(set.counts.mutatingAdmissionPolicies).toBe(1);
      expect(set.counts.mutatingAdmissionPolicyBindings).toBe(1);
      expect(await labelsAdded(set)).toEqual({ 'other-map': 'yes', 'other-mpol': 'yes' });
    });
  }

  it('keeps a document exactly at the bound', async () => {
    // The document and the 999 objects under status: 1000 levels.
    const set = build(mpol('deep', {}, { status: nested(LIMIT - 1) }));
    expect(set.problems).toEqual([]);
    expect(await labelsAdded(set)).toEqual({ 'other-map': 'yes', 'other-mpol': 'yes', deep: 'yes' });
    expect(build(map('deep', {}, { status: nested(LIMIT - 1) })).problems).toEqual([]);
  });
});
