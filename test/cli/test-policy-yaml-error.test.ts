/**
 * A test's policy file that is no valid YAML is reported as kyverno test reports a policy it cannot load,
 * `ERROR: <path>: <error>` (commands/test/test.go: "  ERROR: %s: %s"), with the line. Amender wrote a
 * `?/?: ` kind/name placeholder in it, as if the document had been read.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: teams}
policies: [policy.yaml]
resources: [pods.yaml]
results:
  - {policy: add-team, rule: team, kind: Pod, resources: [web], result: pass}
`;

describe('amender test: a policy file with invalid YAML', () => {
  it('names the file and the line, with no kind/name placeholder', async () => {
    const io = fakeIO({
      't/policy.yaml': 'apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: add-team\nspec: {}\n',
      't/pods.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n',
      't/kyverno-test.yaml': TEST,
    });
    expect(await runCli(['test', 't'], io)).toBe(1);
    expect(io.stdout).toMatch(/\n {2}ERROR: t\/policy\.yaml: invalid YAML: .* at line \d+, column \d+:?\n/);
    expect(io.stdout).not.toContain('?/?');
  });
});
