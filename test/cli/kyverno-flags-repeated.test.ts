/**
 * kyverno apply's and kyverno test's single-value flags given twice: the last counts, as pflag's String and
 * Int flags keep it (Set replaces the value; commands/apply/command.go -f/--values-file, -u/--userinfo,
 * -o/--output, --output-format, --warn-exit-code; commands/test/command.go -o/--output-format,
 * -t/--test-case-selector, -f/--file-name). Amender refused them ('option --x given twice', exit 2), so a
 * kyverno command line a script builds by appending a flag failed. Amender's own single-value options
 * (--old, --operation, --output-file, ...) are still refused when given twice.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy, TEAM_TEST, WEB_POD } from './team-policy.js';

const FILES = {
  'p.yaml': addTeamPolicy(['Pod']),
  'pod.yaml': WEB_POD,
  't/policy.yaml': addTeamPolicy(['Pod']),
  't/pods.yaml': WEB_POD,
  't/kyverno-test.yaml': TEAM_TEST,
  't/other-test.yaml': TEAM_TEST.replace('result: pass', 'result: skip'),
};

async function run(...argv: string[]) {
  const io = fakeIO(FILES);
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('kyverno flags given twice: the last counts', () => {
  it('amender apply --output-format', async () => {
    const r = await run('apply', 'p.yaml', '-r', 'pod.yaml', '-p', '--output-format', 'yaml', '--output-format', 'json');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('{"apiVersion":"openreports.io/v1alpha1"');
  });

  it('amender apply -u / --values-file: the last file is read', async () => {
    const io = fakeIO({ ...FILES, 'u.yaml': 'apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nuserInfo: {username: alice}\n' });
    expect(await runCli(['apply', 'p.yaml', '-r', 'pod.yaml', '-u', 'missing.yaml', '--userinfo', 'u.yaml'], io)).toBe(0);
    expect(io.stderr).not.toContain('missing.yaml');
  });

  it('amender apply --warn-exit-code', async () => {
    const r = await run('apply', 'p.yaml', '-r', 'pod.yaml', '--warn-no-pass', '--warn-exit-code', 'x', '--warn-exit-code', '3');
    expect(r.code).toBe(0);
  });

  it('amender test -o / --output-format', async () => {
    const r = await run('test', 't', '-o', 'markdown', '--output-format', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)[0].RESULT).toBe('Pass');
  });

  it('amender test -f / -t', async () => {
    expect((await run('test', 't', '-f', 'other-test.yaml', '-f', 'kyverno-test.yaml')).code).toBe(0);
    expect((await run('test', 't', '-f', 'kyverno-test.yaml', '-f', 'other-test.yaml')).code).toBe(1);
    const r = await run('test', 't', '-t', 'policy=none', '--test-case-selector', 'policy=add-team', '-o', 'json');
    expect(JSON.parse(r.stdout)).toHaveLength(1);
  });

  it("Amender's own options given twice are still a wrong command line", async () => {
    const r = await run('apply', 'p.yaml', '-r', 'pod.yaml', '--operation', 'CREATE', '--operation', 'UPDATE');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --operation given twice');
  });
});
