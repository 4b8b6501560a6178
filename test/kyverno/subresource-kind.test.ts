/**
 * Subresource requests are matched by the kind of their top-level resource, as Kyverno's webhook does
 * (pkg/webhooks/handlers/enrich.go withTopLevelGVK: the GVK of request.resource, then
 * pkg/utils/match/kind.go CheckKind): the API server sends pods/binding with `kind: v1 Binding` and
 * deployments/scale with `kind: autoscaling/v1 Scale`, and `kinds: [Pod/binding]` / `[Deployment/scale]`
 * select them (kyverno/policies other/mutate-pod-binding, other/restrict-scale).
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';

function policy(kinds: string[]) {
  const result = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      background: false,
      rules: [{ name: 'r', match: { any: [{ resources: { kinds } }] }, mutate: { patchStrategicMerge: { metadata: { annotations: { seen: '{{ request.kind.kind }}' } } } } }],
    },
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.policy;
}

const binding: JsonObject = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'web', namespace: 'default' }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } };
const bindingRequest: AdmissionRequest = {
  uid: 'u',
  kind: { group: '', version: 'v1', kind: 'Binding' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  subResource: 'binding',
  name: 'web',
  namespace: 'default',
  operation: 'CREATE',
  userInfo: { username: 'system:kube-scheduler', groups: ['system:authenticated'] },
  object: binding,
  oldObject: null,
};
const scale: JsonObject = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 9 } };
const scaleRequest: AdmissionRequest = {
  ...bindingRequest,
  kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  subResource: 'scale',
  operation: 'UPDATE',
  userInfo: { username: 'alice', groups: ['system:authenticated'] },
  object: scale,
  oldObject: scale,
};

async function run(kinds: string[], request: AdmissionRequest) {
  const result = await runKyvernoPolicies([policy(kinds)], { request });
  return { rules: result.policies.flatMap((p) => p.rules.map((r) => r.status)), object: result.object as JsonObject };
}

describe('subresource requests match by their top-level kind', () => {
  it.each([
    [['Pod/binding'], bindingRequest, true],
    [['v1/Pod/binding'], bindingRequest, true],
    [['Pod/*'], bindingRequest, true],
    [['Binding'], bindingRequest, false],
    [['Pod'], bindingRequest, false],
    [['Deployment/scale'], scaleRequest, true],
    [['apps/v1/Deployment/scale'], scaleRequest, true],
    [['StatefulSet/scale'], scaleRequest, false],
    [['Scale'], scaleRequest, false],
  ] as const)('%j on %s', async (kinds, request, matches) => {
    expect((await run([...kinds], request)).rules).toEqual(matches ? ['applied'] : []);
  });

  it('the subresource object is mutated, and request.kind stays the one the API server sent', async () => {
    const { object } = await run(['Pod/binding'], bindingRequest);
    expect(object).toEqual({ ...binding, metadata: { ...(binding.metadata as JsonObject), annotations: { seen: 'Binding' } } });
  });
});
