/**
 * `amender apply -t/--table [--detailed-results]` shows the rule results as `kyverno apply -t` does
 * (commands/apply/command.go, table.go: ID, POLICY, RULE, RESOURCE, RESULT, REASON, MESSAGE when
 * detailed; a namespaced Policy as namespace/name; no rule for a MutatingPolicy), and `--audit-warn` is
 * taken. Before, each was a wrong command line (exit 2, "unknown option").
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const NAMESPACED = `apiVersion: kyverno.io/v1
kind: Policy
metadata: {name: tier, namespace: default}
spec:
  failurePolicy: Ignore
  rules:
    - name: tier
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchesJson6902: |-
          - op: add
            path: /metadata/labels/tier
            value: web
    - name: broken
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchesJson6902: |-
          - op: replace
            path: /spec/nothing/here
            value: 1
`;
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec: {containers: [{name: c, image: nginx}]}
`;
const SERVICE = `apiVersion: v1
kind: Service
metadata: {name: svc}
spec: {ports: [{port: 80}]}
`;

async function apply(...args: string[]) {
  const io = fakeIO({ 'team.yaml': addTeamPolicy(['Pod', 'Service']), 'tier.yaml': NAMESPACED, 'pod.yaml': POD, 'svc.yaml': SERVICE });
  const code = await runCli(['apply', 'team.yaml', 'tier.yaml', '-r', 'pod.yaml', '-r', 'svc.yaml', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const cells = (line: string) => line.split('│').slice(1, -1).map((c) => c.trim());

describe('amender apply -t (kyverno apply --table)', () => {
  it('prints the results as a table on stderr, in place of the result lines', async () => {
    const r = await apply('-t');
    // The broken rule's error: exit 1, as kyverno apply (apply-error-exit.test.ts).
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('team: blue');
    const rows = r.stderr.split('\n').filter((l) => l.startsWith('│ '));
    expect(rows.map(cells)).toEqual([
      ['ID', 'POLICY', 'RULE', 'RESOURCE', 'RESULT', 'REASON'],
      ['1', 'add-team', 'team', 'default/Pod/web', 'Pass', ''],
      ['2', 'default/tier', 'tier', 'default/Pod/web', 'Pass', ''],
      ['3', 'default/tier', 'broken', 'default/Pod/web', 'Error', ''],
      ['4', 'add-team', 'team', 'default/Service/svc', 'Pass', ''],
    ]);
    expect(r.stderr).not.toContain('pass: ');
    expect(r.stderr).not.toContain('-> resource');
  });

  it('--table is the long spelling; --detailed-results adds the MESSAGE column', async () => {
    const r = await apply('--table', '--detailed-results');
    const rows = r.stderr.split('\n').filter((l) => l.startsWith('│ ')).map(cells);
    expect(rows[0]).toEqual(['ID', 'POLICY', 'RULE', 'RESOURCE', 'RESULT', 'REASON', 'MESSAGE']);
    expect(rows[3][6]).toContain('/spec/nothing/here');
  });

  it('--audit-warn is taken and changes nothing (no mutate rule fails)', async () => {
    const plain = await apply();
    const warned = await apply('--audit-warn');
    expect(warned).toEqual(plain);
    expect(plain.stderr).toContain('pass: 3, fail: 0, warn: 0, error: 1, skip: 0');
  });
});
