/**
 * kube-apiserver defaults a custom resource after each MutatingAdmissionPolicy mutation
 * (mutating/dispatcher.go dispatchOne: `o.GetObjectDefaulter().Default(newVersionedObject)`, which for a
 * custom resource is the CRD handler's unstructuredDefaulter, apiextensions-apiserver
 * customresource_handler.go, running schema/defaulting/algorithm.go Default): the next mutation, and the
 * next policy's matchConditions, read the schema defaults of what the last one added or removed. A
 * default fills an absent member and a null one unless the field is nullable; a default object gets the
 * defaults of its own fields; list items and additionalProperties values get theirs. Through /mutate.
 */
import { describe, expect, it } from 'vitest';
import { addedAt, exampleCrd, mutateWidget, widgetPolicy } from './widget-reviews.js';

const CRD = exampleCrd('Widget', 'widgets', `
              replicas: { type: integer, default: 1 }
              mode: { type: string, nullable: true, default: auto }
              ratio: { type: number, default: 0.5 }
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  properties:
                    name: { type: string }
                    protocol: { type: string, default: TCP }
              limits:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    unit: { type: string, default: m }
              policy:
                type: object
                default: {}
                properties:
                  retries: { type: integer, default: 3 }`);

/** The received Widget, as the API server hands it over: already defaulted. */
const REVIEW = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"example.com","version":"v1","kind":"Widget"},
"resource":{"group":"example.com","version":"v1","resource":"widgets"},"operation":"CREATE","userInfo":{},"namespace":"default","name":"w",
"object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},
"spec":{"replicas":2,"mode":"auto","ratio":0.5,"ports":[{"name":"a","protocol":"UDP"}],"policy":{"retries":3}}}}}`;

/** Records what it reads of the object in annotations (run after the writer: policies run by name). */
const READER = widgetPolicy(
  'z-reader',
  `patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/metadata/annotations", value: {
          "replicas": string(object.spec.?replicas.orValue(-1)),
          "mode": object.spec.?mode.orValue("absent") == null ? "null" : string(object.spec.?mode.orValue("absent")),
          "ratio": type(object.spec.?ratio.orValue(0)) == double ? "double" : "not a double",
          "protocols": object.spec.ports.map(p, p.?protocol.orValue("none")).join(","),
          "unit": string(object.spec.?limits.?cpu.?unit.orValue("none")),
          "retries": string(object.spec.?policy.?retries.orValue(-1))}}]`,
);

async function readAfter(writer: string): Promise<unknown> {
  const reply = await mutateWidget(CRD + widgetPolicy('a-writer', writer) + READER, REVIEW);
  expect(reply.status?.message).toBeUndefined();
  return addedAt(reply, '/metadata/annotations');
}

describe("a custom resource is defaulted by its CRD's schema after each mutation", () => {
  it('after a JSON patch: removed and new members get their defaults, a nullable null stays', async () => {
    const writer = `patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "remove", path: "/spec/replicas"}, JSONPatch{op: "replace", path: "/spec/mode", value: null},
         JSONPatch{op: "remove", path: "/spec/ratio"}, JSONPatch{op: "remove", path: "/spec/policy"},
         JSONPatch{op: "add", path: "/spec/ports/-", value: {"name": "b"}},
         JSONPatch{op: "add", path: "/spec/limits", value: {"cpu": {}}}]`;
    expect(await readAfter(writer)).toEqual({
      replicas: '1',
      mode: 'null',
      ratio: 'double',
      protocols: 'UDP,TCP',
      unit: 'm',
      retries: '3',
    });
  });

  it('after an ApplyConfiguration: a new list item and map value get their defaults', async () => {
    const writer = `patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{spec: Object.spec{ports: [Object.spec.ports{name: "b"}], limits: {"cpu": Object.spec.limits{}}}}`;
    expect(await readAfter(writer)).toEqual({
      replicas: '2',
      mode: 'auto',
      ratio: 'double',
      protocols: 'UDP,TCP',
      unit: 'm',
      retries: '3',
    });
  });

  it('a non-nullable null is replaced by its default', async () => {
    const writer = `patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "replace", path: "/spec/replicas", value: null}]'`;
    expect(await readAfter(writer)).toMatchObject({ replicas: '1' });
  });
});
