/** Kyverno MutatingPolicy documents the mpol tests share. */
export const NAMESPACED = `apiVersion: policies.kyverno.io/v1
kind: NamespacedMutatingPolicy
metadata: {name: team-label, namespace: team-a}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  autogen: {podControllers: {controllers: []}}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}'
`;

/** Variables in matchConditions, a free-text condition name, Kyverno's image() library, a JSONPatch mutation. */
export const REGISTRY = `apiVersion: policies.kyverno.io/v1beta1
kind: MutatingPolicy
metadata: {name: registry}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
  autogen: {podControllers: {controllers: []}}
  variables:
    - name: images
      expression: 'object.spec.containers.map(c, image(c.image))'
  matchConditions:
    - name: "only pods with an app label"
      expression: 'has(object.metadata.labels) && "app" in object.metadata.labels && size(variables.images) > 0'
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: |
          [JSONPatch{op: "add", path: "/metadata/annotations", value: {}}] +
          variables.images.map(i, JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("registry/" + i.repository()), value: i.registry() + "|" + i.tag()})
`;

/** A pod policy that autogen extends to every pod controller (Kyverno's default). */
export const DNS = `apiVersion: policies.kyverno.io/v1alpha1
kind: MutatingPolicy
metadata: {name: dns}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  matchConditions:
    - name: not host network
      expression: '!has(object.spec.hostNetwork) || !object.spec.hostNetwork'
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: |
          Object{
            spec: Object.spec{
              dnsPolicy: "ClusterFirst",
              enableServiceLinks: false
            }
          }
`;

export const pod = (name: string, namespace: string, extra = '') =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${namespace}, labels: {app: x}}\nspec: {containers: [{name: c, image: nginx}, {name: d, image: "ghcr.io/org/tool:1.2"}]${extra}}\n`;

export const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
`;

export const CRONJOB = `apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: shop}
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
`;
