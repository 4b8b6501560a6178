/**
 * MutatingAdmissionPolicies in Kyverno CLI test files (Kyverno's own tests, copied unchanged, and small
 * ones written here): run by Amender's engine, bound as Kyverno's CLI binds them (an unbound policy as if
 * bound; label-selected params as one `params.items` list), with a note where a cluster does otherwise.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { nodeCliIO } from '../../src/cli/node-io.js';
import { ROOT } from '../node/built.js';
import { fakeIO } from '../cli/fake-io.js';

const DIR = 'test/kyverno-cli/map-tests';

/** The table's rows as `policy | rule | resource | result | reason[ | message]`. */
function tableRows(stdout: string): string[] {
  return stdout.split('\n').filter((l) => /^│ \d+ /.test(l)).map((l) => l.split('│').map((c) => c.trim()).filter((c) => c !== '').slice(1).join(' | '));
}

async function run(args: string[], ...folders: string[]) {
  let stdout = '';
  const io = { ...nodeCliIO(ROOT), out: (t: string) => void (stdout += t), err: () => undefined };
  const code = await runCli(['test', ...args, ...folders.map((f) => `${DIR}/${f}`)], io);
  return { code, stdout, rows: tableRows(stdout) };
}

describe('MutatingAdmissionPolicies in kyverno-test.yaml', () => {
  it('passes bound policies: params, binding match resources and namespace selectors from values', async () => {
    const r = await run([], 'with-params', 'with-binding-match-resources', 'with-binding-namespace-selector', 'with-binding-exclude-resources');
    expect(r.rows.every((row) => row.endsWith('| Pass | Ok'))).toBe(true);
    expect(r.rows).toContain('change-deployment-replicas | change-deployment-replicas | apps/v1/Deployment/default/test-deployment | Pass | Ok');
    expect(r.stdout).toMatch(/Test Summary: \d+ tests passed and 0 tests failed/);
    expect(r.stdout).not.toContain('note:');
    expect(r.code).toBe(0);
  });

  it('runs an unbound policy as if bound, as Kyverno\'s CLI does, and says a cluster never runs it', async () => {
    const r = await run(['--detailed-results'], 'mutate-namespace');
    expect(r.rows).toEqual(['add-label-to-namespace | add-label-to-namespace | v1/Namespace//test-namespace | Pass | Ok | no binding: mutated']);
    expect(r.stdout).toContain("note: MutatingAdmissionPolicy add-label-to-namespace has no binding: it runs as if bound, as in Kyverno's CLI (a cluster never runs an unbound policy)");
    expect(r.code).toBe(0);
  });

  it('passes label-selected params as one params.items list in file order, as Kyverno\'s CLI does, and says a cluster would not', async () => {
    const r = await run(['--detailed-results'], 'with-two-params');
    expect(r.stdout).toContain(
      "note: binding binding selects params by label: they are passed together as one params.items list, in file order, as Kyverno's CLI passes them (a cluster evaluates the policy once per param)",
    );
    // items[0] is param1.yaml's replica-params (10 replicas), items[1] param2.yaml's label-params.
    expect(r.rows).toEqual([
      'change-deployment-replicas-labels | change-deployment-replicas-labels | apps/v1/Deployment/default/test-deployment | Pass | Ok | binding binding param default/[replica-params, label-params]: mutated',
    ]);
    expect(r.code).toBe(0);
  });
});

describe('label-selected params, in a test written here', () => {
  const policy = (selector: string, expression: string, notFound = 'Allow') => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: count-params}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  reinvocationPolicy: Never
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: '${expression}'}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: by-label}
spec:
  policyName: count-params
  paramRef: {namespace: default, selector: {matchLabels: {${selector}}}, parameterNotFoundAction: ${notFound}}
`;
  const PARAMS = ['b', 'a']
    .map((n) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}, namespace: default, labels: {type: p}}\ndata: {v: "${n}"}\n`)
    .concat([
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: elsewhere, namespace: other, labels: {type: p}}\n',
      'apiVersion: v1\nkind: Secret\nmetadata: {name: not-a-configmap, namespace: default, labels: {type: p}}\n',
    ])
    .join('---\n');
  const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: params}
policies: [policy.yaml]
paramResources: [params.yaml]
resources: [pod.yaml]
results:
  - {policy: count-params, resources: [p], kind: Pod, result: pass, isMutatingAdmissionPolicy: true, patchedResources: patched.yaml}
`;
  const pod = (labels: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default${labels ? `, labels: {${labels}}` : ''}}\nspec: {containers: [{name: c, image: nginx}]}\n`;

  it('gives the ConfigMaps of the binding\'s namespace the selector selects, once, in file order, each with its apiVersion and kind', async () => {
    const io = fakeIO({
      't/kyverno-test.yaml': TEST,
      't/policy.yaml': policy('type: p', 'Object{metadata: Object.metadata{labels: {"count": string(size(params.items)), "first": string(params.items[0].data.v), "kind": string(params.items[0].kind)}}}'),
      't/params.yaml': PARAMS,
      't/pod.yaml': pod(''),
      't/patched.yaml': pod('count: "2", first: b, kind: ConfigMap'),
    });
    expect(await runCli(['test', 't'], io)).toBe(0);
    expect(io.stdout).toContain('Test Summary: 1 tests passed and 0 tests failed');
  });

  it('runs the policy once without params when the selector selects none, even under Deny (a cluster would deny the request)', async () => {
    const io = fakeIO({
      't/kyverno-test.yaml': TEST,
      't/policy.yaml': policy('type: none', 'Object{metadata: Object.metadata{labels: {"ran": "yes"}}}', 'Deny'),
      't/params.yaml': PARAMS,
      't/pod.yaml': pod(''),
      't/patched.yaml': pod('ran: "yes"'),
    });
    expect(await runCli(['test', 't', '--detailed-results'], io)).toBe(0);
    expect(io.stdout).toContain('binding by-label: mutated');
  });
});
