/**
 * `amender test --fail-only` prints what `kyverno test --fail-only` prints: no table per test, the summary
 * line "Test Summary: N out of M tests failed", then a blank line and "Aggregated Failed Test Cases : " with
 * the failed rows of every test, numbered anew (commands/test/command.go testCommandExecute: the summary
 * is printed before printFailedTestResult). Amender printed the failed rows before the summary line.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;
const test = (result: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: teams}
policies: [policy.yaml]
resources: [pods.yaml]
results:
  - {policy: add-team, rule: team, kind: Pod, resources: [web], result: ${result}}
  - {policy: add-team, rule: team, kind: Pod, resources: [web], result: pass}
`;

async function run(...args: string[]) {
  const io = fakeIO({
    'a/policy.yaml': addTeamPolicy(['Pod']),
    'a/pods.yaml': POD,
    'a/kyverno-test.yaml': test('skip'),
    'b/policy.yaml': addTeamPolicy(['Pod']),
    'b/pods.yaml': POD,
    'b/kyverno-test.yaml': test('pass'),
  });
  const code = await runCli(['test', ...args], io);
  return { code, stdout: io.stdout };
}

describe('amender test --fail-only', () => {
  it('prints the summary line, then the failed rows', async () => {
    const r = await run('a', 'b', '--fail-only');
    expect(r.code).toBe(1);
    const summary = r.stdout.indexOf('\nTest Summary: 1 out of 4 tests failed\n\nAggregated Failed Test Cases : \n│');
    expect(summary).toBeGreaterThan(0);
    const table = r.stdout.slice(summary);
    expect(table).toContain('│ 1  │ add-team │ team │ v1/Pod/default/web │ Fail   │ Want skip, got pass │');
    expect(table.match(/│ Fail /g)).toHaveLength(1);
    expect(r.stdout.slice(0, summary)).not.toContain('│');
  });

  it('prints no table when nothing failed', async () => {
    const r = await run('b', '--fail-only');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\nTest Summary: 0 out of 2 tests failed\n');
    expect(r.stdout).not.toContain('Aggregated');
    expect(r.stdout).not.toContain('│');
  });
});
