/**
 * A short option (Kyverno's `-s`, `-r`, `-u`...) that a command does not take is a wrong command line
 * naming it (exit 2), never a value of the list option before it nor a path: `--resource pod.yaml -s a=b`
 * read `-s` and `a=b` as resource files ("cannot read -s"), and `--policies p.yaml -r pod.yaml` took the
 * resource for a policy and then said "--resource FILE... is required".
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POLICY = addTeamPolicy(['Pod']);
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;

async function run(...args: string[]) {
  const io = fakeIO({ 'p.yaml': POLICY, 'pod.yaml': POD, 'a=b': POD });
  const code = await runCli(args, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('short options', () => {
  it.each([
    [['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml', '-x', 'a=b'], '-x'],
    [['apply', '--policies', 'p.yaml', '-x', 'pod.yaml', '--resource', 'pod.yaml'], '-x'],
    [['review', '--policies', 'p.yaml', '-q'], '-q'],
    [['validate', 'p.yaml', '-v'], '-v'],
    [['test', '.', '-x'], '-x'],
  ])('%j is refused naming %s', async (argv, option) => {
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`unknown option ${option}\n`);
    expect(r.stderr).toContain(`usage: amender ${argv[0]}`);
  });

  it('hash-secret never echoes an argument that may be the secret, a short option included', async () => {
    const io = fakeIO({});
    expect(await runCli(['hash-secret', '-s3cretS3cret'], io)).toBe(2);
    expect(io.stderr).toContain('the secret is read from standard input, never from the command line');
    expect(io.stderr).not.toContain('s3cretS3cret');
  });

  it('- (standard input) and values that are no option are still taken', async () => {
    const io = fakeIO({ 'p.yaml': POLICY }, POD);
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', '-'], io)).toBe(0);
    expect(io.stdout).toContain('team: blue');
    const e = fakeIO({});
    expect(await runCli(['eval', '--expression', '-1'], e)).toBe(0);
    expect(e.stdout).toContain('-1');
  });
});
