/**
 * Text from a policy or a review that happens to name an Object member (`constructor`, `__proto__`,
 * `toString`, …) is text: every lookup table keyed by such text (duration units, semver comparators, Kyverno
 * operator aliases, the built-in kinds' groups, YAML tags, CLI options) answers as for any other unknown name,
 * never with an inherited member (which failed as "Cannot mix BigInt and other types", "tag.resolve is not a
 * function", "includes is not a function", or silently compared true).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { parseDuration, parseRange } from '../../src/go/index.js';
import { evaluate } from '../../src/kyverno/jmespath/index.js';
import { fakeIO } from '../cli/fake-io.js';

const NAMES = Object.getOwnPropertyNames(Object.prototype);

const POD = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: web, image: nginx}]}\n';

async function cli(files: Record<string, string>, ...argv: string[]) {
  const io = fakeIO(files);
  const code = await runCli(argv, io);
  return { code, out: io.stdout, err: io.stderr };
}

describe('names of Object members in policy and review text', () => {
  it('a Go duration with such a unit is an unknown unit (JMESPath, CEL)', async () => {
    for (const name of NAMES) {
      expect(() => parseDuration(`1${name}`), name).toThrow(`time: unknown unit "${name}" in duration "1${name}"`);
      const r = evaluate(`time_add('2021-01-01T00:00:00Z', '1${name}')`, null);
      expect(r.ok || r.error.message, name).toBe(`time: unknown unit "${name}" in duration "1${name}"`);
    }
    const { code, out, err } = await cli({}, 'eval', '--expression', "duration('1constructor')");
    expect(code).toBe(1);
    expect(out + err).toContain('invalid duration argument');
    expect(out + err).not.toContain('internal error');
  });

  it('a semver range with such a comparator does not parse, and compares nothing', () => {
    for (const name of NAMES) {
      expect(() => parseRange(`${name}1.0.0`), name).toThrow(`Could not parse comparator "${name}"`);
      const r = evaluate(`semver_compare('1.0.0', '${name}1.0.0')`, null);
      expect(r.ok, name).toBe(false);
    }
  });

  it('an image digest of such an algorithm is an unsupported algorithm', () => {
    const digest = 'a'.repeat(64);
    for (const name of ['constructor', 'valueof', 'tostring']) {
      const r = evaluate(`image_normalize('nginx@${name}:${digest}')`, null);
      expect(r.ok || r.error.message, name).toContain('unsupported digest algorithm');
    }
    const known = evaluate(`image_normalize('nginx@sha256:${digest}')`, null);
    expect(known.ok && known.value).toBe(`docker.io/nginx@sha256:${digest}`);
  });

  it('a Kyverno condition with such an operator is refused as an unknown operator', async () => {
    const policy = (operator: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: p}
spec:
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      preconditions: {all: [{key: a, operator: ${operator}, value: a}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {x: "z"}}}}
`;
    const known = await cli({ 'p.yaml': policy('Equals') }, 'validate', 'p.yaml');
    expect(known.code).toBe(0);
    for (const name of ['constructor', 'Constructor', 'toString', 'hasOwnProperty']) {
      const { code, err } = await cli({ 'p.yaml': policy(name) }, 'validate', 'p.yaml');
      expect(code, name).toBe(1);
      expect(err, name).toMatch(/operator/i);
      expect(err, name).not.toContain('internal error');
    }
  });

  it('a paramKind of such a group is no built-in kind: not found, as one of any unknown group', async () => {
    const policy = (group: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: p}
spec:
  paramKind: {apiVersion: ${group}/v1, kind: Settings}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p, paramRef: {name: s, namespace: shop, parameterNotFoundAction: Allow}}
`;
    for (const group of ['constructor', 'example.com']) {
      const { code, err } = await cli({ 'p.yaml': policy(group), 'pod.yaml': POD }, 'apply', '--policies', 'p.yaml', '--resource', 'pod.yaml');
      expect(err, group).not.toContain('internal error');
      expect(code, group).toBe(1);
      expect(err, group).toContain(`failed to find resource referenced by paramKind: '${group}/v1, Kind=Settings'`);
    }
    // Not a group name at all: refused by validation, as kube-apiserver refuses it.
    for (const group of ['__proto__', 'toString']) {
      const { code, err } = await cli({ 'p.yaml': policy(group) }, 'validate', 'p.yaml');
      expect(code, group).toBe(1);
      expect(err, group).toContain(`spec.paramKind.apiVersion: Invalid value: "${group}"`);
    }
  });

  it('a YAML tag of such a name keeps its text, in a policy file and in parse_yaml, as go-yaml does for a tag it does not know', async () => {
    for (const name of NAMES) {
      const r = evaluate(`parse_yaml('a: !<${name}> b')`, null);
      expect(r.ok ? r.value : r.error.message, name).toEqual({ a: 'b' });
    }
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: !<constructor> p}
spec:
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {team: !<__proto__> core}}}}
`;
    const { code, out } = await cli({ 'p.yaml': policy, 'pod.yaml': POD }, 'apply', '--policies', 'p.yaml', '--resource', 'pod.yaml');
    expect(code).toBe(0);
    expect(out).toContain('team: core');
  });
});
