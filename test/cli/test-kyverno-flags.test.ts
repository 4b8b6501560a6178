/**
 * `amender test` reads kyverno test's short flags as pflag does (commands/test/command.go: -o, -t, -f
 * take a value, given in the same argument as `-ojson` or `-o=json`), and refuses the flags an offline
 * run cannot honour (-b/--git-branch, --registry) saying why. Before, `-o=json` was 'unknown option'.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const FILES = {
  'suite/team.yaml': addTeamPolicy(['Pod']),
  'suite/pod.yaml': `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`,
  'suite/patched.yaml': `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {team: blue}}
spec: {containers: [{name: c, image: nginx}]}
`,
  'suite/kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [team.yaml]
resources: [pod.yaml]
results:
  - {policy: add-team, rule: team, resources: [web], patchedResources: patched.yaml, result: pass, kind: Pod}
`,
};
FILES['suite/other-test.yaml' as keyof typeof FILES] = FILES['suite/kyverno-test.yaml'];

async function test(...args: string[]) {
  const io = fakeIO(FILES);
  const code = await runCli(['test', 'suite', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('amender test with kyverno test short flags', () => {
  it('-o=json and -ojson give the format', async () => {
    for (const flag of ['-o=json', '-ojson']) {
      const r = await test(flag);
      expect(r.code, flag).toBe(0);
      expect(JSON.parse(r.stdout)[0]).toMatchObject({ POLICY: 'add-team', RESULT: 'Pass' });
    }
  });

  it('-t=… and -f… give the selector and the file name', async () => {
    expect((await test('-t=policy=other')).stdout).toContain('Test Summary: 0 tests passed and 0 tests failed');
    expect((await test('-t=policy=add-team')).stdout).toContain('Test Summary: 1 tests passed and 0 tests failed');
    expect((await test('-fother-test.yaml')).stdout).toContain('other-test.yaml');
  });

  it('refuses -b/--git-branch and --registry saying why', async () => {
    expect((await test('-b', 'main')).stderr).toContain('-b: kyverno test reads tests from a git repository');
    expect((await test('--git-branch=main')).code).toBe(2);
    const registry = await test('--registry');
    expect(registry.code).toBe(2);
    expect(registry.stderr).toContain('--registry: kyverno reads image data from a registry');
  });
});
