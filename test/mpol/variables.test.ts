/**
 * When the variables of a policy are evaluated, through answerReview (the webhook's in-process entry).
 * Kyverno (pkg/cel/policies/mpol/compiler/policy.go `evaluate`, `appendVariables`) binds one lazy map of
 * variables per policy evaluation: each variable is evaluated on first use, on the object as it is then,
 * and keeps its value through the matchConditions, every mutation and the audit annotations.
 * kube-apiserver evaluates a MutatingAdmissionPolicy's variables afresh for each mutation (a new
 * composition context per patcher), so a later mutation sees them computed on the object the earlier ones
 * left.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { applyPatch, decodePatch } from '../../src/jsonpatch/index.js';
import { answerReview } from '../../src/server/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { k: 'v' } };

/** A variable reading the label the first mutation sets. */
const VARIABLES = `  variables:
  - name: label
    expression: 'has(object.metadata.labels) && "a" in object.metadata.labels ? object.metadata.labels["a"] : "none"'
  - name: late
    expression: 'has(object.metadata.labels) && "a" in object.metadata.labels ? object.metadata.labels["a"] : "none"'
`;

const MUTATIONS = `  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "set"}}}'}
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{annotations: {"seen": variables.label, "late": variables.late}}}'
`;

const RULES = '{resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}';

async function admitted(yaml: string): Promise<JsonObject> {
  const set = policySetFrom(yaml);
  expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
  const answer = await answerReview(reviewOf(CONFIGMAP) as JsonValue, set);
  if (answer.status !== 200) throw new Error(`status ${answer.status}`);
  const response = answer.body.response as { allowed: boolean; patch?: string; status?: { message?: string } };
  expect(response.allowed, response.status?.message).toBe(true);
  const decoded = decodePatch(JSON.parse(Buffer.from(response.patch!, 'base64').toString('utf8')) as JsonValue[]);
  if (!decoded.ok) throw new Error('undecodable patch');
  const applied = applyPatch(CONFIGMAP as JsonValue, decoded.patch);
  if (!applied.ok) throw new Error('patch does not apply');
  return (applied.doc as JsonObject).metadata as JsonObject;
}

describe('variables of a policy across its matchConditions and mutations', () => {
  it('MutatingPolicy: a variable read by a matchCondition keeps that value in a later mutation; one first read after a mutation sees its change', async () => {
    const meta = await admitted(`apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: once}
spec:
  matchConstraints: ${RULES}
${VARIABLES}  matchConditions: [{name: reads-label, expression: 'variables.label != ""'}]
${MUTATIONS}`);
    expect(meta.labels).toEqual({ a: 'set' });
    expect(meta.annotations).toEqual({ seen: 'none', late: 'set' });
  });

  it('MutatingPolicy: a variable read by the first mutation keeps its value in the second', async () => {
    const meta = await admitted(`apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: once}
spec:
  matchConstraints: ${RULES}
${VARIABLES}  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "set", "before": string(variables.label)}}}'}
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{annotations: {"seen": variables.label}}}'}
`);
    expect(meta.labels).toEqual({ a: 'set', before: 'none' });
    expect(meta.annotations).toEqual({ seen: 'none' });
  });

  it('MutatingAdmissionPolicy: each mutation evaluates the variables afresh, on the object the earlier mutations left', async () => {
    const meta = await admitted(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: fresh}
spec:
  reinvocationPolicy: Never
  matchConstraints: ${RULES}
${VARIABLES}  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "set", "before": string(variables.label)}}}'}
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{annotations: {"seen": variables.label}}}'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: fresh}
spec: {policyName: fresh}
`);
    expect(meta.labels).toEqual({ a: 'set', before: 'none' });
    expect(meta.annotations).toEqual({ seen: 'set' });
  });
});
