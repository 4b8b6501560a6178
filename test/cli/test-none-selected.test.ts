/**
 * A Kyverno test none of whose results is selected (by --test-case-selector, or having no results) is
 * passed over without a line, as kyverno test skips it before loading anything (commands/test/command.go
 * testCommandExecute: `if len(filteredResults) == 0 { continue }`, before runTest prints "Loading test").
 * Amender printed "Loading test …" for it.
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
const test = (name: string, policy: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: ${name}}
policies: [policy.yaml]
resources: [pods.yaml]
results:
  - {policy: ${policy}, rule: team, kind: Pod, resources: [web], result: pass}
`;

describe('amender test: a test with no selected result', () => {
  it('prints nothing for it, and runs the others', async () => {
    const io = fakeIO({
      't/policy.yaml': addTeamPolicy(['Pod']),
      't/pods.yaml': POD,
      't/kyverno-test.yaml': `${test('first', 'add-team')}---\n${test('second', 'other')}---\napiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: third}\npolicies: [missing.yaml]\n`,
    });
    expect(await runCli(['test', 't', '-t', 'policy=add-team'], io)).toBe(0);
    expect(io.stdout).toContain('Loading test first ( t/kyverno-test.yaml ) ...');
    expect(io.stdout).not.toContain('second');
    expect(io.stdout).not.toContain('third');
    expect(io.stdout).toContain('Test Summary: 1 tests passed and 0 tests failed');
  });
});
