/**
 * A boolean flag given a value, `--remove-color=true` or `--detailed-results=false`, means what it means
 * to kyverno: pflag reads the value with strconv.ParseBool (1, t, T, true, TRUE, True and their false
 * forms). Amender refused any value ('option --remove-color takes no value', exit 2), so such a kyverno
 * test or kyverno apply command line failed. Another value is still a wrong command line.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy, TEAM_TEST, WEB_POD } from './team-policy.js';


async function run(...argv: string[]) {
  const io = fakeIO({ 'p.yaml': addTeamPolicy(['Pod']), 'pod.yaml': WEB_POD, 't/policy.yaml': addTeamPolicy(['Pod']), 't/pods.yaml': WEB_POD, 't/kyverno-test.yaml': TEAM_TEST });
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('boolean flags with =true / =false', () => {
  it('amender test --remove-color=true --detailed-results=false', async () => {
    const r = await run('test', 't', '--remove-color=true', '--detailed-results=false');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('MESSAGE');
    expect((await run('test', 't', '--detailed-results=T')).stdout).toContain('MESSAGE');
  });

  it('amender apply --table=1 shows the table, --table=false does not', async () => {
    expect((await run('apply', 'p.yaml', '-r', 'pod.yaml', '--table=1')).stderr).toContain('│ ID │ POLICY');
    const off = await run('apply', 'p.yaml', '-r', 'pod.yaml', '--table=false');
    expect(off.code).toBe(0);
    expect(off.stderr).not.toContain('│');
  });

  it('amender apply --stdin=true / --continue-on-fail=false change nothing, as --stdin does', async () => {
    const plain = await run('apply', 'p.yaml', '-r', 'pod.yaml');
    expect(await run('apply', 'p.yaml', '-r', 'pod.yaml', '--stdin=true', '--continue-on-fail=false')).toEqual(plain);
    expect((await run('apply', 'p.yaml', '-r', 'pod.yaml', '--stdin=maybe')).code).toBe(2);
  });

  it('another value is a wrong command line', async () => {
    const r = await run('test', 't', '--fail-only=yes');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --fail-only takes no value, or =true or =false; got "yes"');
  });
});
