/** Building admission requests and policies for the engine tests. */
import type { AdmissionRequest } from '../../../src/admission/index.js';
import type { JsonObject, JsonValue } from '../../../src/json/index.js';
import { compileKyvernoPolicy, type CompiledKyvernoPolicy } from '../../../src/kyverno/index.js';

export function podRequest(pod: JsonObject, overrides: Partial<AdmissionRequest> = {}): AdmissionRequest {
  const meta = (pod.metadata ?? {}) as JsonObject;
  return {
    uid: 'test-uid',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    name: String(meta.name ?? ''),
    namespace: String(meta.namespace ?? 'default'),
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: pod,
    oldObject: null,
    ...overrides,
  };
}

export function pod(name: string, containers: string[], extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: containers.map((c) => ({ name: c, image: `registry.example.com/${c}:1.0` })), ...extra },
  };
}

/** A ClusterPolicy with the given mutate rules matching Pods. */
export function clusterPolicy(name: string, rules: JsonObject[], spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name },
    spec: {
      ...spec,
      rules: rules.map((r) => ({ match: { any: [{ resources: { kinds: ['Pod'] } }] }, ...r })),
    },
  };
}

export function compiled(document: JsonValue): CompiledKyvernoPolicy {
  const result = compileKyvernoPolicy(document);
  if (!result.ok) throw new Error(`does not compile: ${JSON.stringify(result.problems)}`);
  return result.policy;
}
