/**
 * A namespaced Policy applies to objects whose own namespace is the policy's (Kyverno's
 * MatchesResourceDescription compares `resource.GetNamespace()`, pkg/engine/utils/match.go: "policy and
 * resource namespaces mismatch"). A Namespace object is in no namespace, although the API server sends an
 * update of Namespace `team-a` with `request.namespace: team-a` (its RequestInfo takes the namespace from
 * the URL /api/v1/namespaces/team-a): a Policy of team-a must not mutate the Namespace team-a (its labels
 * may decide Pod security admission or other policies' namespaceSelectors).
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, kyvernoPoliciesMatching, runKyvernoPolicies } from '../../src/kyverno/index.js';

const result = compileKyvernoPolicy({
  apiVersion: 'kyverno.io/v1',
  kind: 'Policy',
  metadata: { name: 'relabel', namespace: 'team-a' },
  spec: {
    background: false,
    rules: [
      {
        name: 'privileged',
        match: { any: [{ resources: { kinds: ['Namespace', 'ConfigMap'] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } } },
      },
    ],
  },
});
if (!result.ok) throw new Error(JSON.stringify(result.problems));
const policy = result.policy;

function request(object: JsonObject, kind: string, resource: string, namespace: string): AdmissionRequest {
  return {
    uid: 'u',
    kind: { group: '', version: 'v1', kind },
    resource: { group: '', version: 'v1', resource },
    name: 'team-a',
    namespace,
    operation: 'UPDATE',
    userInfo: { username: 'admin', groups: ['system:masters'] },
    object,
    oldObject: object,
  };
}

describe('a namespaced Policy and its own Namespace object', () => {
  const namespace: JsonObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } };

  it('does not apply to the Namespace, which the API server sends with request.namespace set to its name', async () => {
    const r = request(namespace, 'Namespace', 'namespaces', 'team-a');
    const out = await runKyvernoPolicies([policy], { request: r });
    expect(out.policies).toEqual([]);
    expect(out.object).toBe(namespace);
    expect(kyvernoPoliciesMatching([policy], { request: r }, namespace)).toEqual([]);
  });

  it('still applies to the objects in its namespace', async () => {
    const configMap: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'team-a' }, data: {} };
    const out = await runKyvernoPolicies([policy], { request: request(configMap, 'ConfigMap', 'configmaps', 'team-a') });
    expect(out.policies.flatMap((p) => p.rules.map((x) => x.status))).toEqual(['applied']);
  });
});
