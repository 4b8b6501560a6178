import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

/** `amender apply` reads a resource's `1.0` as a double, as the server reads it in a review (README "Numbers"). */
const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ft}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{annotations: {"type": type(object.spec.f) == double ? "double" : "int"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ft}
spec: {policyName: ft}
`;

describe('amender apply and integral float literals', () => {
  it.each([
    ['widget.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {f: 1.0}\n'],
    ['widget.json', '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"f":1.0}}'],
  ])('%s: CEL reads spec.f as a double', async (file, text) => {
    const io = fakeIO({ 'policy.yaml': POLICY, [file]: text });
    expect(await runCli(['apply', '--policies', 'policy.yaml', '--resource', file], io)).toBe(0);
    expect(io.stdout).toContain('    type: double\n');
  });
});
