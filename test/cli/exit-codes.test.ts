import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

/**
 * README "CLI": exit 1 for a failed check or unusable input, 2 for a wrong command line — which a numeric
 * option's value is, whether it is no number or a number out of range, as an unknown choice is.
 */
const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  mutations:
    - patchType: JSONPatch
      jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"a": "b"}}]'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p}
`;

async function webhookConfig(...args: string[]) {
  const io = fakeIO({ 'p.yaml': POLICY });
  const code = await runCli(['webhook-config', '--url', 'https://amender.example.com/mutate', '--policies', 'p.yaml', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('numeric options: a wrong value is a wrong command line (exit 2)', () => {
  it.each([
    [['--timeout-seconds', 'abc'], '--timeout-seconds abc: a whole number from 1 to 30'],
    [['--timeout-seconds', '31'], '--timeout-seconds 31: a whole number from 1 to 30'],
    [['--timeout-seconds', '0'], '--timeout-seconds 0: a whole number from 1 to 30'],
    [['--timeout-seconds', '-5'], '--timeout-seconds -5: a whole number from 1 to 30'],
    [['--timeout-seconds', '2.5'], '--timeout-seconds 2.5: a whole number from 1 to 30'],
    [['--review-deadline-ms', 'soon'], '--review-deadline-ms soon: a whole number from 1'],
    [['--review-deadline-ms', '0'], '--review-deadline-ms 0: a whole number from 1'],
    [['--timeout-seconds', '5', '--review-deadline-ms', '4500'], '--review-deadline-ms 4500: review deadline 4500 ms does not fit timeoutSeconds 5'],
  ])('webhook-config %j', async (args, message) => {
    const r = await webhookConfig(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`amender webhook-config: ${message}`);
    expect(r.stderr).toContain('usage: amender webhook-config');
  });

  it('values that fit are taken', async () => {
    const r = await webhookConfig('--timeout-seconds', '30', '--review-deadline-ms', '24000');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('timeoutSeconds: 30');
  });

  it('the other values of webhook-config the API server would refuse exit 2 as well', async () => {
    expect((await webhookConfig('--name', 'Not_A_Name')).code).toBe(2);
    expect((await webhookConfig('--exclude-namespace', 'n'.repeat(64))).code).toBe(2);
    const io = fakeIO({ 'p.yaml': POLICY });
    expect(await runCli(['webhook-config', '--url', 'http://amender.example.com/mutate', '--policies', 'p.yaml'], io)).toBe(2);
  });

  it('a value of webhook-config the API server would refuse is said before any policy is read', async () => {
    const url = ['--url', 'https://amender.example.com/mutate'];
    for (const args of [['--name', 'Not_A_Name', ...url], ['--exclude-namespace', 'n'.repeat(64), ...url], ['--url', 'http://amender.example.com/mutate']]) {
      // The policies cannot be read at all: the wrong option is what the command says.
      const io = fakeIO({});
      expect(await runCli(['webhook-config', '--policies', 'missing.yaml', ...args], io), args.join(' ')).toBe(2);
      expect(io.stderr, args.join(' ')).toMatch(new RegExp(`^amender webhook-config: ${args[0]} `));
    }
  });

  it('a policy set that matches nothing stays unusable input (exit 1)', async () => {
    const io = fakeIO({ 'p.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' });
    expect(await runCli(['webhook-config', '--url', 'https://amender.example.com/mutate', '--policies', 'p.yaml'], io)).toBe(1);
  });
});

describe('arguments named like Object.prototype members are arguments', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('amender test %s: a path that does not exist (exit 1), not an internal error', async (name) => {
    const io = fakeIO({ 'p.yaml': POLICY });
    expect(await runCli(['test', name], io)).toBe(1);
    expect(io.stdout + io.stderr).toContain(`cannot read ${name}`);
    expect(io.stdout + io.stderr).not.toContain('internal error');
  });
  it.each(['test', 'apply', 'review', 'validate', 'eval', 'webhook-config', 'hash-secret'])('amender %s --__proto__: an unknown option (exit 2)', async (command) => {
    const io = fakeIO({});
    expect(await runCli([command, '--__proto__'], io)).toBe(2);
    expect(io.stderr).toContain('unknown option --__proto__');
  });
});
