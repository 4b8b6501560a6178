import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

/**
 * An int64 past ±2^53 (9007199254740993 has no double of its own) that the resource carries or a policy
 * writes is printed with every digit, as the server's reply patch holds it (README "Numbers").
 */
const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: big}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{spec: Object.spec{n: 9007199254740995}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: big}
spec: {policyName: big}
`;
const WIDGET_YAML = `apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: shop}
spec:
  keep: 9007199254740993
  list: [9223372036854775807, -9223372036854775807]
`;
const WIDGET_JSON = '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"shop"},"spec":{"keep":9007199254740993,"list":[9223372036854775807]}}';

const files = { 'policy.yaml': POLICY, 'widget.yaml': WIDGET_YAML, 'widget.json': WIDGET_JSON };

describe('amender prints integers past ±2^53 with every digit', () => {
  it('apply: the YAML of a YAML resource keeps its own and the policy\'s integers', async () => {
    const io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policy.yaml', '--resource', 'widget.yaml'], io)).toBe(0);
    expect(io.stdout).toContain('  keep: 9007199254740993\n');
    expect(io.stdout).toContain('    - 9223372036854775807\n    - -9223372036854775807\n');
    expect(io.stdout).toContain('  "n": 9007199254740995\n');
  });

  it('apply: a JSON resource, with --namespace too, keeps its integers', async () => {
    const io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policy.yaml', '--resource', 'widget.json', '--namespace', 'other'], io)).toBe(0);
    expect(io.stdout).toContain('  keep: 9007199254740993\n');
    expect(io.stdout).toContain('    - 9223372036854775807\n');
    expect(io.stdout).toContain('  "n": 9007199254740995\n');
  });

  it('apply --patch: the JSON Patch writes the policy\'s integer as the server does', async () => {
    const io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policy.yaml', '--resource', 'widget.yaml', '--patch'], io)).toBe(0);
    expect(io.stdout).toBe('[\n  {\n    "op": "add",\n    "path": "/spec/n",\n    "value": 9007199254740995\n  }\n]\n');
  });

  it('apply from standard input keeps the digits too', async () => {
    const io = fakeIO({ 'policy.yaml': POLICY }, WIDGET_JSON);
    expect(await runCli(['apply', '--policies', 'policy.yaml', '--resource', '-'], io)).toBe(0);
    expect(io.stdout).toContain('  keep: 9007199254740993\n');
  });

  it('test: an expectation one off in the last digit fails, and the diff shows both values whole', async () => {
    const suite = (expected: string) => ({
      ...files,
      'amender-test.yaml': `policies: [policy.yaml]\ncases:\n  - name: big\n    resource: widget.yaml\n    expect:\n      object: expected.yaml\n`,
      'expected.yaml': WIDGET_YAML.replace('  keep: 9007199254740993\n', `  keep: 9007199254740993\n  "n": ${expected}\n`),
    });
    let io = fakeIO(suite('9007199254740995'));
    expect(await runCli(['test', '.'], io)).toBe(0);
    io = fakeIO(suite('9007199254740996'));
    expect(await runCli(['test', '.'], io)).toBe(1);
    expect(io.stdout).toContain('/spec/n: expected 9007199254740996, got 9007199254740995');
  });
});
