/**
 * A Kyverno MutatingPolicy's `oldObject` on CREATE is `{}`, not null: Kyverno's engine builds the admission
 * attributes with a zero Unstructured for the missing old object (pkg/cel/policies/mpol/engine Handle,
 * admissionutils.ExtractResources), which the CEL inputs convert to an empty map (sdk ObjectToResolveVal,
 * Unstructured.UnstructuredContent). A MutatingAdmissionPolicy's is null (kube-apiserver).
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';

const policy = (kind: 'MutatingPolicy' | 'MutatingAdmissionPolicy') => {
  const api = kind === 'MutatingPolicy' ? 'policies.kyverno.io/v1' : 'admissionregistration.k8s.io/v1';
  const binding = kind === 'MutatingPolicy' ? '' : `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: old}
spec: {policyName: old}
`;
  return `apiVersion: ${api}
kind: ${kind}
metadata: {name: old}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"old": oldObject == null ? "null" : "empty-map"}}}'}}]
${binding}`;
};

const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: x}\ndata: {k: v}\n';

describe('oldObject on CREATE', () => {
  it.each([
    ['MutatingPolicy', 'empty-map'],
    ['MutatingAdmissionPolicy', 'null'],
  ] as const)('%s sees %s', async (kind, label) => {
    const io = fakeIO({ 'p.yaml': policy(kind), 'cm.yaml': CONFIGMAP });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout).metadata.labels).toEqual({ old: label });
  });
});

describe("request.oldObject of a MutatingPolicy on CREATE", () => {
  it('is {} as well, not null: Kyverno sets it from the same zero Unstructured (mpol compiler eval.go prepareData: requestVal["oldObject"] = oldObject.Object)', async () => {
    const doc = policy('MutatingPolicy').replace('oldObject == null ? "null" : "empty-map"', 'request.oldObject == null ? "null" : string(size(request.oldObject))');
    const io = fakeIO({ 'p.yaml': doc, 'cm.yaml': CONFIGMAP });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout).metadata.labels).toEqual({ old: '0' });
  });
});
