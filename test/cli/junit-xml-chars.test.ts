/**
 * `amender test -o junit` writes XML 1.0, whose Char production has no U+FFFE, U+FFFF nor lone
 * surrogates. A failure's message carries the patched resource's differences, so such a character in a
 * resource value reached the report, and a CI's JUnit reader refused the whole file. They are left out,
 * as the control characters were.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: set-x}
spec:
  rules:
    - name: x
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      mutate:
        patchStrategicMerge:
          data: {x: "a\\uFFFFb\\uD800c"}
`;
const CM = `apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data: {y: "1"}
`;
const PATCHED = `apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: default}
data: {y: "1", x: "other"}
`;
const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [cm.yaml]
results:
  - {policy: set-x, rule: x, kind: ConfigMap, resources: [cm], patchedResources: patched.yaml, result: pass}
`;

describe('amender test -o junit', () => {
  it('leaves out the characters XML 1.0 does not allow', async () => {
    const io = fakeIO({ 't/policy.yaml': POLICY, 't/cm.yaml': CM, 't/patched.yaml': PATCHED, 't/kyverno-test.yaml': TEST });
    expect(await runCli(['test', 't', '-o', 'junit', '--detailed-results'], io)).toBe(1);
    expect(io.stdout).toContain('<failure message="Resource diff">');
    expect(io.stdout).toContain('ab');
    expect(io.stdout).not.toMatch(/[\ufffe\uffff]|[\ud800-\udfff]/);
  });
});
