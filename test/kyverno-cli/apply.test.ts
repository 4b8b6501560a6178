/** `amender apply` as `kyverno apply` users run it: values, several resources, namespace default, rule results. */
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: team}
spec:
  rules:
    - name: add-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {labels: {team: "{{ team }}"}}
    - name: on-update
      match: {any: [{resources: {kinds: [Pod], operations: [UPDATE]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {annotations: {previous: "{{ request.oldObject.metadata.name }}"}}
`;
const POD = (name: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: c, image: nginx}]}\n`;
const VALUES = 'apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\nglobalValues: {team: blue}\npolicies: [{name: team, resources: [{name: b, values: {team: red}}]}]\n';

const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJSON());

describe('amender apply with Kyverno values and several resources', () => {
  it('applies values per resource to every document of a file, a List and a folder, with the default namespace', async () => {
    const io = fakeIO({
      'p.yaml': POLICY,
      'values.yaml': VALUES,
      'two.yaml': `${POD('a')}---\n${POD('b')}`,
      'list.yaml': `apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: Pod, metadata: {name: c, namespace: shop}}\n`,
      'dir/d.yaml': POD('d'),
      'dir/readme.md': 'not a resource',
    });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'two.yaml', 'list.yaml', 'dir', '--values-file', 'values.yaml'], io)).toBe(0);
    const out = docs(io.stdout);
    expect(out.map((o) => [o.metadata.namespace, o.metadata.name, o.metadata.labels.team])).toEqual([
      ['default', 'a', 'blue'],
      ['default', 'b', 'red'],
      ['shop', 'c', 'blue'],
      ['default', 'd', 'blue'],
    ]);
    expect(io.stderr).toContain('policy team -> resource default/Pod/a: rule add-team: pass (mutated Pod/a in namespace default)\n');
    expect(io.stderr).toContain('pass: 4, fail: 0, warn: 0, error: 0, skip: 0\n');
  });

  it('takes --set over the values file, and the operation from request.operation', async () => {
    const io = fakeIO({ 'p.yaml': POLICY, 'values.yaml': VALUES, 'pod.yaml': POD('a') });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml', '--values-file', 'values.yaml', '--set', 'team=green,request.operation=UPDATE'], io)).toBe(0);
    const pod = parseYaml(io.stdout);
    expect(pod.metadata.labels).toEqual({ team: 'green' });
    // UPDATE without --old: the object is its own oldObject.
    expect(pod.metadata.annotations).toEqual({ previous: 'a' });
  });

  it('reads resources from standard input and sends UPDATE with the object as oldObject', async () => {
    const io = fakeIO({ 'p.yaml': POLICY }, POD('s'));
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', '-', '--operation', 'UPDATE', '--set', 'team=x'], io)).toBe(0);
    expect(parseYaml(io.stdout).metadata).toEqual({ name: 's', namespace: 'default', labels: { team: 'x' }, annotations: { previous: 's' } });
  });

  it('reports a failing rule as error, and denies as the webhook would (failurePolicy Fail)', async () => {
    const io = fakeIO({ 'p.yaml': POLICY, 'pod.yaml': POD('a') });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], io)).toBe(1);
    expect(io.stderr).toMatch(/policy team -> resource default\/Pod\/a: rule add-team: error \(.*team.*\)\n/);
    expect(io.stderr).toContain('pass: 0, fail: 0, warn: 0, error: 1, skip: 0\n');
    expect(io.stderr).toMatch(/^denied \(403/m);
  });
});

const LABEL_TEAM_MAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label-team}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"team": "shop"}}}'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label-team}
spec: {policyName: label-team}
`;
// Its change depends on the label the MutatingAdmissionPolicy adds (a conditional anchor).
const TIER_FOR_SHOP = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: tier}
spec:
  rules:
    - name: gold-for-shop
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {labels: {(team): shop, tier: gold}}
`;

describe('amender apply without values: the rule lines are those of the answer', () => {
  it('reports the Kyverno rules as the webhook ran them, after the MutatingAdmissionPolicies', async () => {
    const io = fakeIO({ 'p.yaml': `${LABEL_TEAM_MAP}---\n${TIER_FOR_SHOP}`, 'pod.yaml': POD('a') });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout).metadata.labels).toEqual({ team: 'shop', tier: 'gold' });
    expect(io.stderr).toContain('policy tier -> resource default/Pod/a: rule gold-for-shop: pass (mutated Pod/a in namespace default)\n');
    expect(io.stderr).toContain('pass: 1, fail: 0, warn: 0, error: 0, skip: 0\n');
  });

  it('has no Kyverno line for a request denied before the Kyverno step ran', async () => {
    const broken = LABEL_TEAM_MAP.replace(`{"team": "shop"}`, `{"team": object.spec.nothing}`);
    const io = fakeIO({ 'p.yaml': `${broken}---\n${TIER_FOR_SHOP}`, 'pod.yaml': POD('a') });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], io)).toBe(1);
    expect(io.stderr).not.toContain('policy tier ->');
    expect(io.stderr).toContain('pass: 0, fail: 0, warn: 0, error: 0, skip: 0\n');
    expect(io.stderr).toMatch(/^denied \(/m);
  });
});
