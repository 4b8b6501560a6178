import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

/**
 * `amender apply --namespace NS` puts the resources where the API server would: namespaced objects (and
 * the --old object) in NS, cluster-scoped ones in none — the API server clears a cluster-scoped object's
 * namespace before admission (EnsureObjectNamespaceMatchesRequestNamespace), so a namespaced Policy never
 * sees a ClusterRole or a Namespace in its namespace.
 */
const POLICY = `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: label, namespace: shop}
spec:
  background: false
  rules:
  - name: r
    match:
      any:
      - resources: {kinds: ["*"]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            old-namespace: "{{ request.oldObject.metadata.namespace || 'none' }}"
`;
const RESOURCES = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
`;
const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "1"}\n';

async function apply(...args: string[]) {
  const io = fakeIO({ 'policy.yaml': POLICY, 'resources.yaml': RESOURCES, 'cm.yaml': CONFIGMAP });
  const code = await runCli(['apply', '--policies', 'policy.yaml', ...args], io);
  return { code, stderr: io.stderr, objects: parseAllDocuments(io.stdout).map((d) => d.toJS() as { kind: string; metadata: Record<string, unknown> }) };
}

describe('amender apply --namespace', () => {
  it('puts namespaced objects in the namespace and leaves cluster-scoped ones in none', async () => {
    const { code, stderr, objects } = await apply('--resource', 'resources.yaml', '--namespace', 'shop');
    expect(code, stderr).toBe(0);
    expect(objects.map((o) => [o.kind, o.metadata.namespace ?? null, o.metadata.labels ?? null])).toEqual([
      ['ClusterRole', null, null],
      ['Namespace', null, null],
      ['ConfigMap', 'shop', { 'old-namespace': 'none' }],
    ]);
    expect(stderr).toContain('pass: 1,');
  });

  it('puts the --old object in the same namespace as the new one', async () => {
    const { code, stderr, objects } = await apply('--resource', 'cm.yaml', '--old', 'cm.yaml', '--operation', 'UPDATE', '--namespace', 'shop');
    expect(code, stderr).toBe(0);
    expect(objects[0].metadata).toMatchObject({ namespace: 'shop', labels: { 'old-namespace': 'shop' } });
  });

  it('sends a Namespace in its own namespace, as kube-apiserver does (request.namespace is the name)', async () => {
    const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ns}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"request-namespace": request.namespace}}]'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ns}
spec: {policyName: ns}
`;
    const io = fakeIO({ 'policy.yaml': policy, 'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n' });
    expect(await runCli(['apply', '--policies', 'policy.yaml', '--resource', 'ns.yaml', '--patch'], io), io.stderr).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual([{ op: 'add', path: '/metadata/labels', value: { 'request-namespace': 'shop' } }]);
  });
});
