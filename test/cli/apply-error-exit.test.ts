/**
 * `amender apply` exits 1 when a policy result is an error, as `kyverno apply` does (commands/apply/
 * command.go exit(): rc.Error > 0 is "exit as there are policy errors"; processor/result.go counts a
 * mutate rule, a MutatingAdmissionPolicy and a MutatingPolicy error). A webhook lets the request through
 * under failurePolicy Ignore, so before, the command printed `error: 1` and exited 0.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const BROKEN = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: broken}
spec:
  failurePolicy: Ignore
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchesJson6902: |-
          - op: replace
            path: /spec/nothing/here
            value: 1
`;
const BROKEN_MAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: boom}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  failurePolicy: Ignore
  reinvocationPolicy: Never
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: '[JSONPatch{op: "add", path: "/metadata/labels/x", value: string(1/0)}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: boom}
spec: {policyName: boom}
`;
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;

async function apply(files: Record<string, string>, ...args: string[]) {
  const io = fakeIO({ ...files, 'pod.yaml': POD });
  const code = await runCli(['apply', ...args, '-r', 'pod.yaml'], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('amender apply: a policy result that is an error exits 1, as kyverno apply', () => {
  it('a Kyverno rule error under failurePolicy Ignore: the resource printed, exit 1 with the reason', async () => {
    const r = await apply({ 'p.yaml': BROKEN, 'team.yaml': addTeamPolicy(['Pod']) }, 'p.yaml', 'team.yaml');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('team: blue');
    expect(r.stderr).toContain('pass: 1, fail: 0, warn: 0, error: 1, skip: 0');
    expect(r.stderr).toContain('amender: exit 1: 1 policy result is an error');
  });

  it('the same with values (the Kyverno policies run as kyverno apply runs them)', async () => {
    const r = await apply({ 'p.yaml': BROKEN }, 'p.yaml', '--set', 'x=1');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: 1');
    expect(r.stderr).toContain('amender: exit 1: 1 policy result is an error');
  });

  it('a MutatingAdmissionPolicy error under failurePolicy Ignore is named, and exits 1', async () => {
    const r = await apply({ 'm.yaml': BROKEN_MAP }, '--policies', 'm.yaml');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('name: web');
    expect(r.stderr).toMatch(/^MutatingAdmissionPolicy boom -> resource default\/Pod\/web: error \(.*division by zero\)$/m);
  });

  it('no error: exit 0', async () => {
    const r = await apply({ 'team.yaml': addTeamPolicy(['Pod']) }, 'team.yaml');
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('exit 1');
  });
});
