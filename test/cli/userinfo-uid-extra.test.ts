/**
 * A Kyverno CLI UserInfo file's `userInfo` is an authentication/v1 UserInfo: username, uid, groups and
 * extra (cli.kyverno.io_userinfoes.yaml), which Kyverno's CLI puts in the request as `request.userInfo`.
 * `amender apply -u` and `amender test` (a test's `userinfo:`) dropped uid and extra, so a rule reading
 * `request.userInfo.uid` or `request.userInfo.extra` failed ("Unknown key"). The file is read strictly,
 * as Kyverno reads it (yaml.UnmarshalStrict): an unknown key of userInfo is an error.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: who}
spec:
  background: false
  rules:
    - name: stamp
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata:
            annotations:
              uid: "{{ request.userInfo.uid }}"
              scope: "{{ request.userInfo.extra.scopes[1] }}"
              user: "{{ request.userInfo.username }}"
`;
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec: {containers: [{name: c, image: nginx}]}
`;
const userInfo = (more = '') => `apiVersion: cli.kyverno.io/v1alpha1
kind: UserInfo
metadata: {name: u}
${more}userInfo:
  username: alice
  uid: "42"
  groups: [dev]
  extra:
    scopes: [read, write]
`;

async function apply(info: string) {
  const io = fakeIO({ 'p.yaml': POLICY, 'pod.yaml': POD, 'u.yaml': info });
  const code = await runCli(['apply', 'p.yaml', '-r', 'pod.yaml', '-u', 'u.yaml'], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('UserInfo files: uid and extra reach request.userInfo', () => {
  it('amender apply -u (the webhook path)', async () => {
    const r = await apply(userInfo());
    expect(r.stderr).toContain('pass: 1, fail: 0, warn: 0, error: 0, skip: 0');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('uid: "42"');
    expect(r.stdout).toContain('scope: write');
    expect(r.stdout).toContain('user: alice');
  });

  it('amender apply -u with roles (Kyverno policies run as Kyverno\'s CLI runs them)', async () => {
    const r = await apply(userInfo('clusterRoles: [admin]\n'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('uid: "42"');
    expect(r.stdout).toContain('scope: write');
  });

  it('amender test with a userinfo file', async () => {
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: who}
policies: [p.yaml]
resources: [pod.yaml]
userinfo: u.yaml
results:
  - {policy: who, rule: stamp, resources: [web], patchedResources: patched.yaml, result: pass}
`;
    const patched = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, annotations: {uid: "42", scope: write, user: alice}}
spec: {containers: [{name: c, image: nginx}]}
`;
    const io = fakeIO({ 't/kyverno-test.yaml': test, 't/p.yaml': POLICY, 't/pod.yaml': POD, 't/u.yaml': userInfo(), 't/patched.yaml': patched });
    expect(await runCli(['test', 't'], io)).toBe(0);
    expect(io.stdout).toContain('Test Summary: 1 tests passed and 0 tests failed');
  });

  it('an unknown key of userInfo, or a wrong type, is an error naming it', async () => {
    const typo = await apply(userInfo().replace('uid: "42"', 'uuid: "42"'));
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('u.yaml: userInfo: unknown key "uuid"');
    const wrong = await apply(userInfo().replace('scopes: [read, write]', 'scopes: read'));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('u.yaml: userInfo.extra.scopes: expected a list of strings');
  });
});
