/**
 * `amender test` compares a patched resource as `kyverno test` does, labels included: before comparing,
 * the Kyverno CLI drops `generate.kyverno.io/*` labels on both sides and gives each side
 * `app.kubernetes.io/managed-by: kyverno` unless it has its own (resource/labels.go FixupGenerateLabels,
 * called from commands/test/compare.go getAndCompareResource).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POLICY = addTeamPolicy(['ConfigMap']);
const RESOURCE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  labels: {generate.kyverno.io/policy-name: copy, generate.kyverno.io/rule-name: r}
data: {a: b}
`;
const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: labels}
policies: [policy.yaml]
resources: [resource.yaml]
results:
  - {policy: add-team, rule: team, kind: ConfigMap, resources: [cm], patchedResources: patched.yaml, result: pass}
`;

async function run(patchedLabels: string) {
  const patched = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  namespace: default
  labels: ${patchedLabels}
data: {a: b}
`;
  const io = fakeIO({ 't/policy.yaml': POLICY, 't/resource.yaml': RESOURCE, 't/patched.yaml': patched, 't/kyverno-test.yaml': TEST });
  const code = await runCli(['test', 't'], io);
  return { code, stdout: io.stdout };
}

describe('amender test: patched resources compared with Kyverno\'s label fix-up', () => {
  it('generate.kyverno.io labels are left out of the comparison', async () => {
    const r = await run('{team: blue}');
    expect(r.stdout).toContain('Test Summary: 1 tests passed and 0 tests failed');
    expect(r.code).toBe(0);
  });

  it('managed-by: kyverno on one side only is no difference', async () => {
    const r = await run('{team: blue, app.kubernetes.io/managed-by: kyverno, generate.kyverno.io/policy-name: other}');
    expect(r.stdout).toContain('Test Summary: 1 tests passed and 0 tests failed');
    expect(r.code).toBe(0);
  });

  it('another managed-by, or another label, is still a difference', async () => {
    for (const labels of ['{team: blue, app.kubernetes.io/managed-by: helm}', '{team: red}']) {
      const r = await run(labels);
      expect(r.stdout).toContain('Test Summary: 0 tests passed and 1 tests failed');
      expect(r.code).toBe(1);
    }
  });
});
