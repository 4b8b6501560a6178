/**
 * A resource file holding a bare JSON array is refused, as kyverno apply and kyverno test refuse it: the
 * Kyverno CLI decodes each document as one object (cmd/cli/kubectl-kyverno/resource/resource.go
 * YamlToUnstructured), and apimachinery's decoder fails on an array (runtime/serializer/json/meta.go
 * Interpret: "couldn't get version/kind; json parse error: json: cannot unmarshal array ..."). Amender took
 * it as a list of resources (policy sources may be JSON arrays; resource files may not).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const ARRAY = JSON.stringify([POD]);
const REFUSED = 'a JSON array is not read as resources (kyverno and kubectl refuse it too): give one JSON object, YAML documents separated by ---, or a List (kind: List, items: [...])';

describe('a resource file that is a JSON array', () => {
  it('amender apply refuses it naming the file', async () => {
    for (const text of [ARRAY, `\uFEFF  ${ARRAY}`, '[]']) {
      const io = fakeIO({ 'p.yaml': addTeamPolicy(['Pod']), 'pods.json': text });
      expect(await runCli(['apply', 'p.yaml', '--resource', 'pods.json'], io)).toBe(1);
      expect(io.stderr).toBe(`amender apply: pods.json: ${REFUSED}\n`);
      expect(io.stdout).toBe('');
    }
  });

  it('amender apply still reads a JSON object and a JSON List', async () => {
    const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [POD] });
    for (const text of [JSON.stringify(POD), list]) {
      const io = fakeIO({ 'p.yaml': addTeamPolicy(['Pod']), 'pods.json': text });
      expect(await runCli(['apply', 'p.yaml', '--resource', 'pods.json'], io)).toBe(0);
      expect(io.stdout).toContain('team: blue');
    }
  });

  it('amender test fails the test with the reason', async () => {
    const io = fakeIO({
      't/policy.yaml': addTeamPolicy(['Pod']),
      't/pods.json': ARRAY,
      't/kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: teams}
policies: [policy.yaml]
resources: [pods.json]
results:
  - {policy: add-team, rule: team, kind: Pod, resources: [web], result: pass}
`,
    });
    expect(await runCli(['test', 't'], io)).toBe(1);
    expect(io.stdout + io.stderr).toContain(`t/pods.json: ${REFUSED}`);
  });
});
