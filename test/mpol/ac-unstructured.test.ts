/**
 * Kyverno's MutatingPolicy keeps the object unstructured after an ApplyConfiguration (pkg/cel/policies/mpol
 * compiler applyconfig.go): no conversion back into the kind's Go type, so a value kube-apiserver's
 * MutatingAdmissionPolicy refuses there (a fraction in an integer field: test/map/ac-conversion.test.ts)
 * is applied, for the API server to judge.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';

const POLICY = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: fraction}
spec:
  failurePolicy: Fail
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{spec: Object.spec{priority: 1.5}}'}}]
`;

const POD = 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec: {containers: [{name: c, image: i}]}\n';

describe('a Kyverno MutatingPolicy ApplyConfiguration result', () => {
  it('is not converted into the Go type: a fraction in an integer field is applied', async () => {
    const io = fakeIO({ 'p.yaml': POLICY, 'pod.yaml': POD });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout).spec.priority).toBe(1.5);
  });
});
