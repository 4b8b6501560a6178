/**
 * `-` among the policy paths is standard input, as `kyverno apply - --resource pod.yaml` reads its
 * policies (cmd/cli/kubectl-kyverno/policy/load.go: source.IsStdin → stdinLoad). Before, amender said
 * "cannot read policies from -: no such file or folder". Standard input is read once: `-` for policies
 * and for a resource (or, in review, for the review) is a wrong command line.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;
const TIER = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: tier}
spec:
  rules:
    - name: tier
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {tier: web}}}}
`;

describe('policies from standard input (-)', () => {
  it('amender apply - -r pod.yaml, alone or beside files', async () => {
    const io = fakeIO({ 'pod.yaml': POD, 'tier.yaml': TIER }, addTeamPolicy(['Pod']));
    expect(await runCli(['apply', '-', '-r', 'pod.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout).metadata.labels).toEqual({ team: 'blue' });
    const both = fakeIO({ 'pod.yaml': POD, 'tier.yaml': TIER }, addTeamPolicy(['Pod']));
    expect(await runCli(['apply', 'tier.yaml', '-', '-r', 'pod.yaml'], both)).toBe(0);
    expect(parseYaml(both.stdout).metadata.labels).toEqual({ tier: 'web', team: 'blue' });
    expect(both.stderr).toContain('policy tier -> resource default/Pod/web: rule tier: pass');
  });

  it('amender validate -', async () => {
    const io = fakeIO({}, addTeamPolicy(['Pod']));
    expect(await runCli(['validate', '-'], io)).toBe(0);
  });

  it('standard input given twice is a wrong command line', async () => {
    const apply = fakeIO({}, addTeamPolicy(['Pod']));
    expect(await runCli(['apply', '-', '-r', '-'], apply)).toBe(2);
    expect(apply.stderr).toContain('standard input (-) is read once');
    const review = fakeIO({}, addTeamPolicy(['Pod']));
    expect(await runCli(['review', '--policies', '-'], review)).toBe(2);
    expect(review.stderr).toContain('the review is read from it unless --input FILE');
  });
});
