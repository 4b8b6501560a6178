/**
 * Policies the CLI tests apply. The Kyverno policy most of them apply: rule `team` of ClusterPolicy `add-team` labels each resource of
 * `kinds` with `team: <team>` by a strategic merge.
 */
export function addTeamPolicy(kinds: readonly string[], team = 'blue'): string {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-team}
spec:
  rules:
    - name: team
      match: {any: [{resources: {kinds: [${kinds.join(', ')}]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {labels: {team: ${team}}}
`;
}

/**
 * MutatingAdmissionPolicy `label`, which labels each Pod created with `x: y` by an ApplyConfiguration,
 * and its binding `binding`.
 */
export function labelMap(binding = 'label'): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"x": "y"}}}'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${binding}}
spec: {policyName: label}
`;
}

/** Pod `web` (default namespace), one nginx container. */
export const WEB_POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;

/** A kyverno-test.yaml: add-team (policy.yaml) passes on Pod web (pods.yaml). */
export const TEAM_TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: teams}
policies: [policy.yaml]
resources: [pods.yaml]
results:
  - {policy: add-team, rule: team, kind: Pod, resources: [web], result: pass}
`;
