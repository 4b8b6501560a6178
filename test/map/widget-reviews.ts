/**
 * What the tests of a custom resource's numbers and defaults share: an example.com/v1 CRD, a
 * MutatingAdmissionPolicy (and its binding) on CREATE of example.com/v1 widgets, and the reply of /mutate
 * for a review under a set of such policies.
 */
import { expect } from 'vitest';
import { decodeBase64Utf8 } from '../../src/admission/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';

/** The AdmissionReview of CREATE of Widget `w` in namespace `default`, with an empty spec. */
export const EMPTY_WIDGET_REVIEW = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"example.com","version":"v1","kind":"Widget"},
"resource":{"group":"example.com","version":"v1","resource":"widgets"},"operation":"CREATE","userInfo":{},"namespace":"default","name":"w",
"object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{}}}}`;

/**
 * The CRD of namespaced example.com/v1 `kind` (`plural`), its `spec` an object of `specProperties` (YAML
 * lines indented 14 spaces, under `properties:`), followed by `---`.
 */
export function exampleCrd(kind: string, plural: string, specProperties: string): string {
  return `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${plural}.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { kind: ${kind}, plural: ${plural} }
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
${specProperties.replace(/^\n/, '')}
---`;
}

/**
 * The CRD of namespaced example.com Limit at v1 (served, stored) and v2 (served when `v2Served`), both
 * schemaless, then Limit `l` in default written at `writtenVersion` with `spec: { tier: gold }`, then `---`.
 */
export function limitsWithParam(v2Served: boolean, writtenVersion = 'v1'): string {
  return `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: limits.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { kind: Limit, plural: limits }
  versions:
  - { name: v1, served: true, storage: true, schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } } }
  - { name: v2, served: ${v2Served}, storage: false, schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } } }
---
apiVersion: example.com/${writtenVersion}
kind: Limit
metadata: { name: l, namespace: default }
spec: { tier: gold }
---`;
}

/**
 * MutatingAdmissionPolicy `p` and its binding `p` on CREATE of example.com/v1 widgets, reading params of
 * `paramKind` (an `apiVersion, kind` flow mapping's inside) found by `paramRef` (a flow mapping), whose
 * JSON patch sets the annotations to the CEL map `annotations` (its entries).
 */
export function widgetParamPolicy({ paramKind, paramRef, annotations, failurePolicy = 'Fail' }: { paramKind: string; paramRef: string; annotations: string; failurePolicy?: 'Fail' | 'Ignore' }): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: { name: p }
spec:
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  paramKind: { ${paramKind} }
  matchConstraints:
    resourceRules: [{ operations: [CREATE], apiGroups: [example.com], apiVersions: [v1], resources: [widgets] }]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/metadata/annotations", value: {
          ${annotations}}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: { name: p }
spec:
  policyName: p
  paramRef: ${paramRef}
`;
}

/** Policy `name` (failurePolicy Fail) with one mutation (YAML, indented under `mutations:`), bound. */
export function widgetPolicy(name: string, mutation: string): string {
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

export interface WidgetReply {
  allowed: boolean;
  /** The JSON patch's text, decoded. */
  patch?: string;
  status?: { message: string };
}

/** The reply of /mutate for `review` (its JSON text) under `policies` (YAML documents, which must load cleanly). */
export async function mutateWidget(policies: string, review: string): Promise<WidgetReply> {
  const set = buildPolicySet(parseDocuments('p.yaml', policies));
  expect(set.problems).toEqual([]);
  const { app } = createApp({ policies: fixedPolicySet(set, 'test') });
  const res = await app.fetch(new Request('http://amender/mutate', { method: 'POST', body: review, headers: { 'content-type': 'application/json' } }));
  const r = ((await res.json()) as { response: { allowed: boolean; patch?: string; status?: { message: string } } }).response;
  return { allowed: r.allowed, patch: r.patch === undefined ? undefined : decodeBase64Utf8(r.patch), status: r.status };
}

/** The value the reply's patch adds at `path`. */
export function addedAt(reply: WidgetReply, path: string): unknown {
  const ops = JSON.parse(reply.patch ?? '[]') as { path: string; value: unknown }[];
  return ops.find((op) => op.path === path)?.value;
}
