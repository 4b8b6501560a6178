/**
 * A ConfigMap created in a namespace, and a MutatingAdmissionPolicy on that CREATE whose JSONPatch sets
 * the annotations to a CEL map: the shape of the tests that read what a policy sees of the objects in
 * its sources (params, Namespaces) through the annotations it writes.
 */

/** The CREATE review of ConfigMap `c` in `namespace`. */
export function configMapReview(namespace = 'default'): string {
  return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"","version":"v1","kind":"ConfigMap"},
"resource":{"group":"","version":"v1","resource":"configmaps"},"operation":"CREATE","userInfo":{},"namespace":"${namespace}","name":"c",
"object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"${namespace}"}}}}`;
}

export interface AnnotatingPolicy {
  /** The CEL map the annotations are set to. */
  annotations: string;
  /** `apiVersion: v1, kind: ConfigMap`: the policy's paramKind, the binding's paramRef names `param`. */
  paramKind?: string;
  /** The param the binding refers to (default `param`). */
  paramName?: string;
  /** A label selector (flow YAML) for matchConstraints.namespaceSelector. */
  namespaceSelector?: string;
}

/** MutatingAdmissionPolicy `p` (failurePolicy Fail) and its binding `p`. */
export function annotatingPolicy({ annotations, paramKind, paramName = 'param', namespaceSelector }: AnnotatingPolicy): string {
  return `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: { name: p }
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
${paramKind ? `  paramKind: { ${paramKind} }\n` : ''}  matchConstraints:
${namespaceSelector ? `    namespaceSelector: ${namespaceSelector}\n` : ''}    resourceRules: [{ operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps] }]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/metadata/annotations", value: ${annotations}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: { name: p }
spec:
  policyName: p
${paramKind ? `  paramRef: { name: ${paramName}, parameterNotFoundAction: Deny }\n` : ''}`;
}
