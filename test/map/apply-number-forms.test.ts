/**
 * The literal form of a number an ApplyConfiguration merges into a custom resource, as a later policy's CEL
 * reads it. kube-apiserver merges with structured-merge-diff, which takes a scalar from the patch
 * (typed/merge.go), and keeps the result unstructured (mutating/patch/smd.go TypedToObject): a CEL double
 * `2.0` is a float64 there, a double for the next expression, even where the live object held the int `2`;
 * an int `2` replaces a live `2.0` as an int. Numbers of a `set` list keep the form of the side they come
 * from. Through the app's /mutate, from the review's JSON text (`2.0` read as a double).
 */
import { describe, expect, it } from 'vitest';
import { addedAt, exampleCrd, mutateWidget, widgetPolicy } from './widget-reviews.js';

const CRD = exampleCrd('Widget', 'widgets', `
              f: { type: number }
              e: { type: number }
              h: { type: object, additionalProperties: { type: number } }
              nums: { type: array, x-kubernetes-list-type: set, items: { type: number } }`);

const WRITER = widgetPolicy(
  'a-writer',
  `patchType: ApplyConfiguration\n    applyConfiguration: { expression: 'Object{spec: Object.spec{f: 2.0, e: 2, h: {"x": 3.0}, nums: [2.0, 3.0]}}' }`,
);
const READER = widgetPolicy(
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
    const reply = await mutateWidget(CRD + WRITER + READER, REVIEW);
    expect(reply.allowed).toBe(true);
    expect(addedAt(reply, '/metadata/annotations')).toEqual({ f: 'true', e: 'true', h: 'true', nums: 'false,true,true' });
  });
});
