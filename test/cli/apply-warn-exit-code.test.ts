/**
 * `amender apply --warn-no-pass [--warn-exit-code N]`, kyverno apply's flags (commands/apply/command.go:
 * exit() returns WarnExitCodeError{warnExitCode} when rc.Pass == 0 and warnNoPassed, after failures and
 * errors, which exit 1; main.go exits with its code). Before, both were a wrong command line (exit 2).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy, labelMap } from './team-policy.js';

const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;
const LABEL_MAP = labelMap();

async function apply(policy: string, ...args: string[]) {
  const io = fakeIO({ 'p.yaml': policy, 'pod.yaml': POD });
  const code = await runCli(['apply', 'p.yaml', '-r', 'pod.yaml', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('amender apply --warn-no-pass / --warn-exit-code (kyverno apply)', () => {
  it('no policy passed on any resource: exit with --warn-exit-code, saying why', async () => {
    const r = await apply(addTeamPolicy(['Service']), '--warn-no-pass', '--warn-exit-code', '3');
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('name: web');
    expect(r.stderr).toContain('amender: exit 3: no policy passed on any resource (--warn-no-pass)');
  });

  it('--warn-no-pass alone exits 0 as kyverno apply (its warn exit code defaults to 0)', async () => {
    const r = await apply(addTeamPolicy(['Service']), '--warn-no-pass');
    expect(r.code).toBe(0);
  });

  it('a passing Kyverno rule or MutatingAdmissionPolicy: exit 0', async () => {
    expect((await apply(addTeamPolicy(['Pod']), '--warn-no-pass', '--warn-exit-code=4')).code).toBe(0);
    expect((await apply(LABEL_MAP, '--warn-no-pass', '--warn-exit-code=4')).code).toBe(0);
  });

  it('--warn-exit-code alone changes nothing (mutate rules give no warnings)', async () => {
    const r = await apply(addTeamPolicy(['Service']), '--warn-exit-code', '3');
    expect(r.code).toBe(0);
  });

  it('a --warn-exit-code that is no exit status is a wrong command line', async () => {
    for (const bad of ['256', '-1', 'x', '']) {
      const r = await apply(addTeamPolicy(['Pod']), `--warn-exit-code=${bad}`);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--warn-exit-code ${bad}: a whole number from 0 to 255`);
    }
  });
});
