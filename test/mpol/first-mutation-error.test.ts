/**
 * A MutatingPolicy stops at its first failing mutation: Kyverno's evaluate (pkg/cel/policies/mpol/compiler
 * policy.go) returns the first patcher's error, so the later mutations never run and the request is
 * answered with that one error. kube-apiserver runs every mutation of a MutatingAdmissionPolicy and
 * reports each failure (mutating/dispatcher.go: `continue` after addConfigError), which stays so.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import { evaluate } from '../../src/engine/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

const RULES = '{resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}';
const MUTATIONS = `  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": object.metadata.missingOne}}}'}
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"b": object.metadata.missingTwo}}}'}
`;

const MUTATING_POLICY = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: two-failures}
spec:
  matchConstraints: ${RULES}
${MUTATIONS}`;

const MAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: two-failures}
spec:
  matchConstraints: ${RULES}
  reinvocationPolicy: Never
${MUTATIONS}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: two-failures}
spec: {policyName: two-failures}
`;

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default' } };

/** The denial's causes and the outcomes of a review of CONFIGMAP. */
async function run(yaml: string): Promise<{ causes: string[]; results: string[] }> {
  const set = policySetFrom(yaml);
  expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
  const result = await evaluate(set, reviewOf(CONFIGMAP).request as unknown as AdmissionRequest);
  if (result.allowed) throw new Error('expected a denial');
  return { causes: (result.status.details?.causes ?? []).map((c) => c.message ?? ''), results: result.outcomes.map((o) => o.result) };
}

describe('the first failing mutation of a policy', () => {
  it('MutatingPolicy: ends the policy; the next mutation never runs and only the first error is reported', async () => {
    const { causes, results } = await run(MUTATING_POLICY);
    expect(causes).toEqual([expect.stringContaining('no such key: missingOne')]);
    expect(results).toEqual(['error']);
  });

  it('MutatingAdmissionPolicy: every mutation runs and each failure is reported, as in kube-apiserver', async () => {
    const { causes, results } = await run(MAP);
    expect(causes).toEqual([expect.stringContaining('no such key: missingOne'), expect.stringContaining('no such key: missingTwo')]);
    expect(results).toEqual(['error', 'error']);
  });
});
