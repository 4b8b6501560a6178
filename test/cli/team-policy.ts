/**
 * The Kyverno policy most CLI tests apply: rule `team` of ClusterPolicy `add-team` labels each resource of
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
