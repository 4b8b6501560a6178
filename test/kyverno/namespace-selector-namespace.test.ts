/**
 * A filter's `namespaceSelector` on a Namespace object: since kyverno/kyverno#7837 (pkg/engine/utils/match.go
 * doesResourceMatchConditionBlock, "namespace selector is not applicable for namespace resource") the
 * filter does not hold for it, so a match filter does not select the Namespace and an exclude filter does not
 * exclude it (chainsaw validate/…/ns-selector-with-wildcard-kind, issue #7771: a `kinds: ["*"]` rule with a
 * `freeze: "true"` namespaceSelector must not catch the labelled Namespace itself).
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';

const FREEZE = { matchExpressions: [{ key: 'freeze', operator: 'In', values: ['true'] }] };

function policy(match: JsonObject, exclude?: JsonObject) {
  const result = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'freeze-policy' },
    spec: { background: false, rules: [{ name: 'mark', match, ...(exclude ? { exclude } : {}), mutate: { patchStrategicMerge: { metadata: { annotations: { frozen: 'yes' } } } } }] },
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.policy;
}

function request(object: JsonObject, kind: string, resource: string, namespace: string): AdmissionRequest {
  return {
    uid: 'u',
    kind: { group: '', version: 'v1', kind },
    resource: { group: '', version: 'v1', resource },
    name: String((object.metadata as JsonObject).name),
    namespace,
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: [] },
    object,
    oldObject: null,
  };
}

const namespace: JsonObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'test-validate', labels: { freeze: 'true' } } };
const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'nginx-block', namespace: 'test-validate' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

async function applied(p: ReturnType<typeof policy>, r: AdmissionRequest, namespaceLabels?: Record<string, string>) {
  const result = await runKyvernoPolicies([p], { request: r, namespaceLabels });
  return result.policies.flatMap((o) => o.rules.map((x) => x.status));
}

describe('namespaceSelector and Namespace objects', () => {
  const wildcard = policy({ any: [{ resources: { kinds: ['*'], namespaceSelector: FREEZE } }] });

  it('a match filter with a namespaceSelector does not select a Namespace, whatever its labels', async () => {
    expect(await applied(wildcard, request(namespace, 'Namespace', 'namespaces', ''))).toEqual([]);
    expect(await applied(wildcard, request(namespace, 'Namespace', 'namespaces', 'test-validate'), { freeze: 'true' })).toEqual([]);
    const emptySelector = policy({ any: [{ resources: { kinds: ['Namespace'], namespaceSelector: {} } }] });
    expect(await applied(emptySelector, request(namespace, 'Namespace', 'namespaces', ''))).toEqual([]);
  });

  it('while objects in a selected namespace still match', async () => {
    expect(await applied(wildcard, request(pod, 'Pod', 'pods', 'test-validate'), { freeze: 'true' })).toEqual(['applied']);
    expect(await applied(wildcard, request(pod, 'Pod', 'pods', 'test-validate'), { freeze: 'false' })).toEqual([]);
  });

  it('an exclude filter with a namespaceSelector does not exclude a Namespace', async () => {
    const p = policy({ any: [{ resources: { kinds: ['Namespace'] } }] }, { any: [{ resources: { namespaceSelector: FREEZE } }] });
    expect(await applied(p, request(namespace, 'Namespace', 'namespaces', ''))).toEqual(['applied']);
  });
});
