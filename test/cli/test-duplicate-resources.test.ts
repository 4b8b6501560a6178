/**
 * `amender test` takes resources that share API group, kind, namespace and name as one resource, as
 * `kyverno test` does: it keys them by GroupKind, not version (cmd/cli/kubectl-kyverno/resource/
 * duplicate.go RemoveDuplicates), keeps the first, and warns once per such resource with
 * `warning: found duplicated resource <Kind> <name> <namespace>` (commands/test/test.go). Amender keyed
 * them by apiVersion, so example.com/v1 and example.com/v2 Widgets of one name were both run and checked,
 * and its warning named `v1/Pod/default/web` once per extra copy.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const widget = (version: string) => `apiVersion: example.com/${version}
kind: Widget
metadata: {name: web}
spec: {size: 1}
`;
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;
const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: teams}
policies: [policy.yaml]
resources: [widgets.yaml, pods.yaml]
results:
  - {policy: add-team, rule: team, kind: Widget, resources: [web], result: pass}
`;

describe('amender test: duplicated resources', () => {
  it('one resource per group, kind, namespace and name; one warning for each, as kyverno names it', async () => {
    const io = fakeIO({
      't/policy.yaml': addTeamPolicy(['Widget', 'Pod']),
      't/widgets.yaml': [widget('v1'), widget('v2'), widget('v1')].join('---\n'),
      't/pods.yaml': [POD, POD, POD].join('---\n'),
      't/kyverno-test.yaml': TEST,
    });
    expect(await runCli(['test', 't', '-o', 'json'], io)).toBe(0);
    expect(io.stderr).toContain('  warning: found duplicated resource Widget web default\n  warning: found duplicated resource Pod web default\n  Applying 1 policy to 2 resources ...');
    expect(io.stderr.match(/found duplicated resource/g)).toHaveLength(2);
    const rows = JSON.parse(io.stdout) as { RESOURCE: string }[];
    expect(rows.map((r) => r.RESOURCE).sort()).toEqual(['example.com/v1/Widget/default/web', 'v1/Pod/default/web']);
  });
});
