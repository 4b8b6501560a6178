/**
 * Kyverno's MutatingPolicies take no part in the emulated reinvocation pass of MutatingAdmissionPolicies:
 * Kyverno runs each once (mpol engine Handle), in a webhook it registers without reinvocation. So their
 * matchConditions are not evaluated again on the object the first pass produced.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';

const MAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: a-label}
spec:
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}'}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: a-label}
spec: {policyName: a-label}
`;

// Its condition holds on the object it first sees; on its own result (label done) it reads a missing key.
const MPOL = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: once}
spec:
  failurePolicy: Fail
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  matchConditions: [{name: first-time, expression: '!("done" in object.metadata.labels) || object.metadata.labels["missing"] == "x"'}]
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"done": "yes"}}}'}}]
`;

const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: x, labels: {app: web}}\ndata: {k: v}\n';

describe('the reinvocation pass and Kyverno MutatingPolicies', () => {
  it('does not evaluate a MutatingPolicy again: its condition, an error on its own result, denies nothing', async () => {
    const io = fakeIO({ 'p.yaml': `${MAP}---\n${MPOL}`, 'cm.yaml': CONFIGMAP });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout).metadata.labels).toEqual({ app: 'web', team: 'a', done: 'yes' });
  });
});
