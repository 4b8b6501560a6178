/**
 * A custom resource's subresource request (`foos/scale`, sent with `kind: autoscaling/v1 Scale`) is matched
 * by the kind its CustomResourceDefinition declares for the resource, as Kyverno's webhook reads the
 * top-level kind of request.resource through discovery (pkg/webhooks/handlers/enrich.go withTopLevelGVK):
 * with the CRD in the policy set, `kinds: [example.com/v1/Foo/scale]` selects it; without the CRD nothing
 * can tell the kind, and it does not. Through answerReview, as the webhook runs it.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { answerReview } from '../../src/server/index.js';
import { policySetFrom } from '../server/helpers.js';

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Foo, plural: foos, singular: foo, listKind: FooList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
    subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
`;

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: scale-note}
spec:
  background: false
  rules:
  - name: note
    match: {any: [{resources: {kinds: [example.com/v1/Foo/scale]}}]}
    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            scaled-by: '{{ request.userInfo.username }}'
`;

const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'f', namespace: 'default' }, spec: { replicas: 3 } };
const review = {
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u',
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    resource: { group: 'example.com', version: 'v1', resource: 'foos' },
    subResource: 'scale',
    name: 'f',
    namespace: 'default',
    operation: 'UPDATE',
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: scale,
    oldObject: scale,
  },
};

async function patchFor(yaml: string): Promise<unknown> {
  const set = policySetFrom(yaml);
  const answer = await answerReview(review as unknown as JsonValue, set);
  const response = (answer.body as { response: { allowed: boolean; patch?: string } }).response;
  expect(response.allowed).toBe(true);
  return response.patch ? JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) : undefined;
}

describe('a custom resource subresource request matches by the kind its CRD declares', () => {
  it('with the CRD in the set, Foo/scale selects the foos/scale request', async () => {
    expect(await patchFor(`${CRD}---\n${POLICY}`)).toEqual([{ op: 'add', path: '/metadata/annotations', value: { 'scaled-by': 'alice' } }]);
  });

  it('without it, the request cannot be told a Foo and is left alone', async () => {
    expect(await patchFor(POLICY)).toBeUndefined();
  });
});
