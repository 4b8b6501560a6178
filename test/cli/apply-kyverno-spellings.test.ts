/**
 * `amender apply` takes the command lines users carry over from `kyverno apply` (commands/apply/command.go:
 * policies as arguments, `-r`/`--resources`, `-f` values file, `-s` set, `-u`/`--userinfo` UserInfo file,
 * `--remove-color`). Before, each was a wrong command line ("unexpected argument", "unknown option").
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const TEAM = addTeamPolicy(['Pod'], '"{{ team }}"');
/** Acts for cluster admins only: Kyverno's CLI knows the roles from the UserInfo file. */
const BY_ROLE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: by-role}
spec:
  background: false
  rules:
    - name: admins
      match: {any: [{resources: {kinds: [Pod]}, clusterRoles: [admin]}]}
      mutate:
        patchStrategicMerge:
          metadata: {labels: {by: "{{ request.userInfo.username }}"}}
`;
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;
const VALUES = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
globalValues: {team: red}
`;
const userInfo = (roles: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: UserInfo
metadata: {name: u}
clusterRoles: ${roles}
userInfo: {username: alice, groups: [dev]}
`;

async function run(...argv: string[]) {
  const io = fakeIO({ 'team.yaml': TEAM, 'role.yaml': BY_ROLE, 'pod.yaml': POD, 'values.yaml': VALUES, 'admin.yaml': userInfo('[admin]'), 'viewer.yaml': userInfo('[viewer]') });
  const code = await runCli(['apply', ...argv], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe("amender apply with kyverno apply's spellings", () => {
  it.each([
    [['team.yaml', '-r', 'pod.yaml', '-s', 'team=blue'], 'team: blue'],
    [['team.yaml', '--resources', 'pod.yaml', '--set', 'team=blue', '--remove-color'], 'team: blue'],
    [['team.yaml', '--resources=pod.yaml', '-f', 'values.yaml'], 'team: red'],
    [['--policies', 'team.yaml', '--resource', 'pod.yaml', '-s', 'team=blue'], 'team: blue'],
  ])('%j', async (argv, label) => {
    const r = await run(...argv);
    expect(r.stderr).toContain('rule team: pass');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(label);
  });

  it('-u gives the user and the cluster roles a rule matches on', async () => {
    const admin = await run('role.yaml', '-r', 'pod.yaml', '-u', 'admin.yaml');
    expect(admin.code).toBe(0);
    expect(admin.stdout).toContain('by: alice');
    const viewer = await run('role.yaml', '-r', 'pod.yaml', '--userinfo', 'viewer.yaml');
    expect(viewer.code).toBe(0);
    expect(viewer.stdout).not.toContain('by:');
  });

  it('a broken UserInfo file is named', async () => {
    const io = fakeIO({ 'team.yaml': TEAM, 'pod.yaml': POD, 'u.yaml': 'kind: UserInfo\nusername: alice\n' });
    expect(await runCli(['apply', 'team.yaml', '-r', 'pod.yaml', '-u', 'u.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('u.yaml: unknown key "username"');
  });
});
