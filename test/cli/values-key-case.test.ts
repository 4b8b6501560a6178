/**
 * The Kyverno CLI's Values and UserInfo files are read with yaml.UnmarshalStrict (utils/common/common.go
 * LoadYAML, userinfo/userinfo.go), whose encoding/json matches a field name case-insensitively when no
 * key matches exactly: `globalvalues`, `Policies[].Resources`, `UserInfo.UserName` are taken there.
 * Amender refused them as unknown keys (test files were already read so, format.ts).
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: team}
spec:
  background: false
  rules:
    - name: add-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {labels: {team: "{{ team }}", tier: "{{ tier }}", who: "{{ request.userInfo.username }}"}}
`;
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;
const VALUES = `apiVersion: cli.kyverno.io/v1alpha1
Kind: Values
GlobalValues: {team: blue}
policies:
  - Name: team
    Resources:
      - NAME: web
        values: {tier: gold}
NamespaceSelector:
  - Name: default
    Labels: {env: prod}
`;
const USER_INFO = `apiVersion: cli.kyverno.io/v1alpha1
kind: UserInfo
UserInfo: {UserName: ann, Groups: [devs]}
`;

describe("Kyverno CLI files read with Go's case-insensitive keys", () => {
  it('amender apply -f VALUES -u USERINFO', async () => {
    const io = fakeIO({ 'p.yaml': POLICY, 'pod.yaml': POD, 'values.yaml': VALUES, 'user.yaml': USER_INFO });
    const code = await runCli(['apply', 'p.yaml', '-r', 'pod.yaml', '-f', 'values.yaml', '-u', 'user.yaml'], io);
    expect(io.stderr).not.toContain('unknown key');
    expect(code).toBe(0);
    expect(parseYaml(io.stdout).metadata.labels).toEqual({ team: 'blue', tier: 'gold', who: 'ann' });
  });

  it('a key no field matches, whatever its case, is still refused', async () => {
    const io = fakeIO({ 'p.yaml': POLICY, 'pod.yaml': POD, 'values.yaml': VALUES.replace('GlobalValues', 'GlobalValue') });
    expect(await runCli(['apply', 'p.yaml', '-r', 'pod.yaml', '-f', 'values.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('unknown key "GlobalValue"');
  });

  it("amender test: a test file's inline values and its variables file", async () => {
    const files = {
      't/p.yaml': POLICY,
      't/pod.yaml': POD,
      't/values.yaml': VALUES,
      't/user.yaml': USER_INFO,
      't/patched.yaml': `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {team: blue, tier: gold, who: ann}}
spec: {containers: [{name: c, image: nginx}]}
`,
      't/kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [p.yaml]
resources: [pod.yaml]
variables: values.yaml
userinfo: user.yaml
results:
  - {policy: team, rule: add-team, resources: [web], patchedResources: patched.yaml, result: pass}
`,
    };
    const io = fakeIO(files);
    expect(await runCli(['test', 't'], io)).toBe(0);
    expect(io.stdout).toContain('Test Summary: 1 tests passed and 0 tests failed');
    const inline = fakeIO({
      ...files,
      't/kyverno-test.yaml': files['t/kyverno-test.yaml'].replace('variables: values.yaml', 'values: {globalvalues: {team: blue}, Policies: [{name: team, resources: [{name: web, Values: {tier: gold}}]}]}'),
    });
    expect(await runCli(['test', 't'], inline)).toBe(0);
  });
});
