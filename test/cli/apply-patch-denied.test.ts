import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

/**
 * `amender apply --patch` prints one entry per resource, in order, and null for a denied one: a denied
 * request stores nothing, and leaving it out shifted every later patch onto the wrong resource.
 */
const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  reinvocationPolicy: Never
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: 'object.metadata.name == "bad" ? [JSONPatch{op: "remove", path: "/nope"}] : [JSONPatch{op: "add", path: "/metadata/labels", value: {"name": object.metadata.name}}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p}
`;
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n`;
const label = (name: string) => [{ op: 'add', path: '/metadata/labels', value: { name } }];

async function patch(...resources: string[]) {
  const io = fakeIO({ 'policy.yaml': POLICY, 'bad.yaml': cm('bad'), 'good.yaml': cm('good'), 'fine.yaml': cm('fine') });
  const code = await runCli(['apply', '--policies', 'policy.yaml', '--resource', ...resources, '--patch'], io);
  return { code, stderr: io.stderr, out: JSON.parse(io.stdout) as unknown };
}

describe('amender apply --patch with a denied resource', () => {
  it('keeps each patch at its resource\'s place, null for the denied one', async () => {
    const { code, stderr, out } = await patch('good.yaml', 'bad.yaml', 'fine.yaml');
    expect(code).toBe(1);
    expect(stderr).toContain('denied (403 Invalid): default/ConfigMap/bad:');
    expect(out).toEqual([label('good'), null, label('fine')]);
  });

  it('prints null, not an empty patch, for a single denied resource', async () => {
    const { code, out } = await patch('bad.yaml');
    expect(code).toBe(1);
    expect(out).toBeNull();
  });
});
