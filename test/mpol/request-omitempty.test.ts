/**
 * `request` and `namespaceObject` in a MutatingPolicy, as Kyverno binds them: the unstructured JSON of
 * the AdmissionRequest and of the Namespace (pkg/cel/policies/mpol/compiler/eval.go prepareData,
 * runtime.DefaultUnstructuredConverter), where an `omitempty` field holding its zero value is absent. So,
 * as in kube-apiserver, `request.subResource` without a subresource, `request.name` of a create without a
 * name, an empty `request.userInfo.uid` and a Namespace's missing annotations read as `no such key`, and has()
 * is false for them; a field the request does carry reads as it is.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { applyPatch, decodePatch } from '../../src/jsonpatch/index.js';
import { answerReview } from '../../src/server/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-', namespace: 'team' } };
const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata: {name: team}
`;

const policy = (name: string, failurePolicy: string, expression: string) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: ${name}}
spec:
  failurePolicy: ${failurePolicy}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        ${expression}
`;

async function answer(yaml: string) {
  const set = policySetFrom(yaml);
  expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
  const reply = await answerReview(reviewOf(CONFIGMAP, { userInfo: { username: 'alice', groups: ['dev'] } }) as JsonValue, set);
  if (reply.status !== 200) throw new Error(`status ${reply.status}`);
  return reply.body.response as { allowed: boolean; patch?: string; status?: { message?: string } };
}

function annotations(response: { patch?: string }): JsonValue | undefined {
  const decoded = decodePatch(JSON.parse(Buffer.from(response.patch!, 'base64').toString('utf8')) as JsonValue[]);
  if (!decoded.ok) throw new Error('undecodable patch');
  const applied = applyPatch(CONFIGMAP as JsonValue, decoded.patch);
  if (!applied.ok) throw new Error('patch does not apply');
  return ((applied.doc as JsonObject).metadata as JsonObject).annotations;
}

describe('MutatingPolicy: omitempty fields of request and namespaceObject', () => {
  it('has() is false for the empty ones and true for those the request carries', async () => {
    const response = await answer(
      NAMESPACE +
        '---\n' +
        policy(
          'has',
          'Fail',
          `Object{metadata: Object.metadata{annotations: {
          "subResource": string(has(request.subResource)),
          "name": string(has(request.name)),
          "namespace": string(has(request.namespace)),
          "uid": string(has(request.userInfo.uid)),
          "username": string(has(request.userInfo.username)),
          "extra": string(has(request.userInfo.extra)),
          "nsAnnotations": string(has(namespaceObject.metadata.annotations)),
          "nsName": string(has(namespaceObject.metadata.name))}}}`,
        ),
    );
    expect(response.allowed, response.status?.message).toBe(true);
    expect(annotations(response)).toEqual({
      subResource: 'false',
      name: 'false',
      namespace: 'true',
      uid: 'false',
      username: 'true',
      extra: 'false',
      nsAnnotations: 'false',
      nsName: 'true',
    });
  });

  it('reading an absent one is an error, which failurePolicy Fail turns into a denial', async () => {
    const response = await answer(policy('reads', 'Fail', 'Object{metadata: Object.metadata{annotations: {"sub": request.subResource}}}'));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toContain('no such key: subResource');
  });
});
