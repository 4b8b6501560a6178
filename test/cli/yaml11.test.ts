/**
 * Policy files and resources are read as kubectl and the Kyverno CLI read them: sigs.k8s.io/yaml, i.e.
 * go-yaml v2 with YAML 1.1 resolution (resolve.go: `0400` is octal, `no`/`on` are booleans; decode.go:
 * `<<` merges). Amender used to read them as YAML 1.2 (400, "no", "on", `<<` a literal key).
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
  labels:
    app: web
spec:
  containers:
    - name: app
      image: nginx:1
`;

const kyverno = (name: string, rule: string) => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ${name}}
spec:
  rules:
    - name: r
      match:
        any:
          - resources: {kinds: [Pod]}
${rule}`;

async function patchOf(policy: string, pod = POD): Promise<unknown> {
  const io = fakeIO({ 'p/policy.yaml': policy, 'pod.yaml': pod });
  expect(await runCli(['apply', '--policies', 'p', '--resource', 'pod.yaml', '--patch'], io)).toBe(0);
  expect(io.stderr).not.toMatch(/invalid YAML|refused|ignored/);
  return JSON.parse(io.stdout.slice(io.stdout.indexOf('[')));
}

describe('policy files are read as kubectl reads them (YAML 1.1, go-yaml v2)', () => {
  it('an overlay `defaultMode: 0400` is the octal 256 (file mode 0400), not 400', async () => {
    const policy = kyverno(
      'secret-volume',
      `      mutate:
        patchStrategicMerge:
          spec:
            volumes:
              - name: creds
                secret: {secretName: creds, defaultMode: 0400}
`,
    );
    expect(await patchOf(policy)).toEqual([{ op: 'add', path: '/spec/volumes', value: [{ name: 'creds', secret: { secretName: 'creds', defaultMode: 256 } }] }]);
  });

  it('a merge key `<<` merges the anchored mapping (the policy used to be refused)', async () => {
    const policy = kyverno(
      'merge-key',
      `      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              <<: &std {team: platform}
              tier: web
`,
    );
    expect(await patchOf(policy)).toEqual([
      { op: 'add', path: '/metadata/labels/team', value: 'platform' },
      { op: 'add', path: '/metadata/labels/tier', value: 'web' },
    ]);
  });

  it('a precondition `value: no` is the boolean false', async () => {
    const policy = kyverno(
      'yes-no',
      `      preconditions:
        all:
          - key: "{{ request.object.spec.hostNetwork || \`false\` }}"
            operator: Equals
            value: no
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              isolated: "true"
`,
    );
    expect(await patchOf(policy)).toEqual([{ op: 'add', path: '/metadata/labels/isolated', value: 'true' }]);
  });

  it('a quoted "no" stays a string, so the same precondition does not hold', async () => {
    const policy = kyverno(
      'quoted',
      `      preconditions:
        all:
          - key: "{{ request.object.spec.hostNetwork || \`false\` }}"
            operator: Equals
            value: "no"
      mutate:
        patchStrategicMerge:
          metadata:
            labels:
              isolated: "true"
`,
    );
    expect(await patchOf(policy)).toEqual([]);
  });
});

describe('resources are read as kubectl reads them', () => {
  const POD_OCTAL = `apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
spec:
  enableServiceLinks: on
  containers:
    - name: app
      image: nginx:1
  volumes:
    - name: creds
      secret:
        secretName: creds
        defaultMode: 0400
`;

  // A boolean goes in a bool field: the API server refuses a label that is no string (object-meta.ts).
  it('apply --resource: `defaultMode: 0400` is 256 and `enableServiceLinks: on` is true', async () => {
    const io = fakeIO({ 'p/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n', 'pod.yaml': POD_OCTAL });
    expect(await runCli(['apply', '--policies', 'p', '--resource', 'pod.yaml'], io)).toBe(0);
    const printed = parseYaml(io.stdout) as { spec: { enableServiceLinks: unknown; volumes: { secret: { defaultMode: unknown } }[] } };
    expect(printed.spec.volumes[0].secret.defaultMode).toBe(256);
    expect(printed.spec.enableServiceLinks).toBe(true);
  });

  it('apply --resource: a policy sees the resource values kubectl would have sent', async () => {
    const policy = kyverno(
      'sees-octal',
      `      preconditions:
        all:
          - key: "{{ request.object.spec.volumes[0].secret.defaultMode }}"
            operator: Equals
            value: 256
          - key: "{{ request.object.spec.enableServiceLinks }}"
            operator: Equals
            value: true
      mutate:
        patchStrategicMerge:
          metadata:
            annotations:
              seen: "octal"
`,
    );
    expect(await patchOf(policy, POD_OCTAL)).toEqual([{ op: 'add', path: '/metadata/annotations', value: { seen: 'octal' } }]);
  });

  it('a resource that writes a key twice is refused with the line', async () => {
    const io = fakeIO({ 'p/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n', 'pod.yaml': POD.replace('  labels:\n', '  labels:\n    app: api\n') });
    expect(await runCli(['apply', '--policies', 'p', '--resource', 'pod.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('pod.yaml: invalid YAML: Map keys must be unique: key "app" already set in map at line 8, column 5');
  });
});
