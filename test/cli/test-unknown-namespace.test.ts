/**
 * `amender test` on a namespace the test does not describe (no Namespace document, no values entry), as
 * the Kyverno CLI runs it: a MutatingPolicy's namespaceSelector is matched against Kyverno's stand-in
 * namespace, labelled only `kubernetes.io/metadata.name` (pkg/cel/matching/predicates/namespace
 * matcher.go GetNamespace), and a MutatingAdmissionPolicy's against the namespace with no labels
 * (pkg/admissionpolicy/mutate.go). Both were errors here (the webhook's rule: a selector it cannot
 * evaluate fails by failurePolicy), so a Kyverno test excluding kube-system by name failed under amender.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { capturedCliIO } from '../fixtures/kyverno-library.js';

const MUTATING_POLICY = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: label-outside-system}
spec:
  matchConstraints:
    namespaceSelector:
      matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"seen": string(namespaceObject == null)}}}'
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: label-prod}
spec:
  matchConstraints:
    namespaceSelector: {matchLabels: {env: prod}}
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"prod": "true"}}}'
`;

const MAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label-unlabelled}
spec:
  matchConstraints:
    namespaceSelector:
      matchExpressions: [{key: env, operator: DoesNotExist}]
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{annotations: {"namespace": namespaceObject.metadata.name}}}'
`;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function testDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'amender-unknown-ns-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function amenderTest(dir: string): Promise<{ code: number; out: string }> {
  const c = capturedCliIO();
  const code = await runCli(['test', dir], c.io);
  return { code, out: c.out() };
}

describe('amender test: a namespace the test does not describe', () => {
  it("matches a MutatingPolicy's namespaceSelector against Kyverno's stand-in; namespaceObject stays null", async () => {
    const dir = testDir({
      'policy.yaml': MUTATING_POLICY,
      'resource.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: shop}\n',
      'patched.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: shop, labels: {seen: "true"}}\n',
      'kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: unknown-namespace}
policies: [policy.yaml]
resources: [resource.yaml]
results:
- isMutatingPolicy: true
  kind: ConfigMap
  policy: label-outside-system
  resources: [shop/app]
  patchedResources: patched.yaml
  result: pass
`,
    });
    const { code, out } = await amenderTest(dir);
    expect(out).toMatch(/Test Summary: 1 tests passed and 0 tests failed/);
    // The stand-in has no env label: the other policy does not match (no result, not an error).
    expect(out).not.toMatch(/label-prod.*(Error|Fail)/);
    expect(code).toBe(0);
  });

  it("matches a MutatingAdmissionPolicy's namespaceSelector against the namespace with no labels", async () => {
    const dir = testDir({
      'policy.yaml': MAP,
      'resource.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: shop}\n',
      'patched.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: shop, annotations: {namespace: shop}}\n',
      'kyverno-test.yaml': `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: unknown-namespace-map}
policies: [policy.yaml]
resources: [resource.yaml]
results:
- isMutatingAdmissionPolicy: true
  kind: ConfigMap
  policy: label-unlabelled
  resources: [shop/app]
  patchedResources: patched.yaml
  result: pass
`,
    });
    const { code, out } = await amenderTest(dir);
    expect(out, out).toMatch(/Test Summary: 1 tests passed and 0 tests failed/);
    expect(code).toBe(0);
  });
});
