/**
 * The literal form of a number an ApplyConfiguration merges into a custom resource, as a later policy's CEL
 * reads it. kube-apiserver merges with structured-merge-diff, which takes a scalar from the patch
 * (typed/merge.go), and keeps the result unstructured (mutating/patch/smd.go TypedToObject): a CEL double
 * `2.0` is a float64 there, a double for the next expression, even where the live object held the int `2`;
 * an int `2` replaces a live `2.0` as an int. Numbers of a `set` list keep the form of the side they come
 * from. Through the app's /mutate, from the review's JSON text (`2.0` read as a double).
 */
import { describe, expect, it } from 'vitest';
import { decodeBase64Utf8 } from '../../src/admission/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';

const CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { kind: Widget, plural: widgets }
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              f: { type: number }
              e: { type: number }
              h: { type: object, additionalProperties: { type: number } }
              nums: { type: array, x-kubernetes-list-type: set, items: { type: number } }
---`;

function policy(name: string, mutation: string): string {
  return `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: { name: ${name} }
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{ operations: [CREATE], apiGroups: [example.com], apiVersions: [v1], resources: [widgets] }]
  mutations:
  - ${mutation}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: { name: ${name} }
spec: { policyName: ${name} }
---`;
}

const WRITER = policy(
  'a-writer',
  `patchType: ApplyConfiguration\n    applyConfiguration: { expression: 'Object{spec: Object.spec{f: 2.0, e: 2, h: {"x": 3.0}, nums: [2.0, 3.0]}}' }`,
);
const READER = policy(
  'z-reader',
  `patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/metadata/annotations", value: {
          "f": string(type(object.spec.f) == double), "e": string(type(object.spec.e) == int),
          "h": string(type(object.spec.h.x) == double),
          "nums": object.spec.nums.map(n, string(type(n) == double)).join(",")}}]`,
);

const REVIEW = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"example.com","version":"v1","kind":"Widget"},
"resource":{"group":"example.com","version":"v1","resource":"widgets"},"operation":"CREATE","userInfo":{},"namespace":"default","name":"w",
"object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"f":2,"e":2.0,"nums":[1,2]}}}}`;

describe('numbers an ApplyConfiguration merges into a custom resource', () => {
  it('take the literal form the patch gives them', async () => {
    const set = buildPolicySet(parseDocuments('p.yaml', CRD + WRITER + READER));
    expect(set.problems).toEqual([]);
    const { app } = createApp({ policies: fixedPolicySet(set, 'test') });
    const res = await app.fetch(new Request('http://amender/mutate', { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } }));
    const reply = (await res.json()) as { response: { allowed: boolean; patch: string } };
    expect(reply.response.allowed).toBe(true);
    const patch = JSON.parse(decodeBase64Utf8(reply.response.patch)) as { path: string; value: unknown }[];
    expect(patch.find((op) => op.path === '/metadata/annotations')?.value).toEqual({ f: 'true', e: 'true', h: 'true', nums: 'false,true,true' });
  });
});
