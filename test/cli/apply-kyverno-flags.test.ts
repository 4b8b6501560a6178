/**
 * kyverno apply's command line under `amender apply` (commands/apply/command.go flags): --resource is a
 * pflag StringSlice, so `-r a.yaml,b.yaml` names two files (read as a line of CSV); --parameter-resource
 * and --crd-paths give documents that are part of the policy set here; -i/--stdin and --continue-on-fail
 * have nothing to do; the flags that need a cluster, a registry, a git remote or an input Amender does
 * not read are refused saying why; short flags take values as pflag gives them (-rFILE, -r=FILE). Before, each was 'unknown option' (exit 2) or, for commas, "cannot
 * read a.yaml,b.yaml".
 */
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec: {containers: [{name: c, image: nginx}]}
`;
const PARAM_MAP = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"team": params.data.team}}}'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label}
spec: {policyName: label, paramRef: {name: teams, namespace: default}}
`;
const PARAM = `apiVersion: v1
kind: ConfigMap
metadata: {name: teams, namespace: default}
data: {team: red}
`;

async function apply(...args: string[]) {
  const io = fakeIO({ 'team.yaml': addTeamPolicy(['Pod']), 'map.yaml': PARAM_MAP, 'param.yaml': PARAM, 'a.yaml': pod('a'), 'b.yaml': pod('b'), 'c,d.yaml': pod('cd') });
  const code = await runCli(['apply', ...args], io);
  const names = code === 0 ? parseAllDocuments(io.stdout).map((d) => d.toJS()?.metadata?.name) : [];
  return { code, names, stdout: io.stdout, stderr: io.stderr };
}

describe('amender apply with kyverno apply command lines', () => {
  it('--resource values are comma-separated lists, as kyverno reads a StringSlice', async () => {
    expect((await apply('team.yaml', '-r', 'a.yaml,b.yaml')).names).toEqual(['a', 'b']);
    expect((await apply('team.yaml', '--resource=a.yaml,b.yaml', '--resources', 'a.yaml')).names).toEqual(['a', 'b', 'a']);
    // A path with a comma is quoted, as in CSV.
    expect((await apply('team.yaml', '-r', '"c,d.yaml"')).names).toEqual(['cd']);
  });

  it('an empty path or a stray quote in a list is a wrong command line', async () => {
    for (const bad of ['a.yaml,', ',a.yaml', 'a.yaml,,b.yaml', 'a"b.yaml', '"a.yaml', '"a.yaml"x']) {
      const r = await apply('team.yaml', '-r', bad);
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain(`--resource ${bad}: `);
    }
  });

  it('--parameter-resource and --crd-paths give documents of the policy set', async () => {
    expect((await apply('map.yaml', '--parameter-resource', 'param.yaml', '-r', 'a.yaml')).stdout).toContain('team: red');
    expect((await apply('map.yaml', '--crd-paths', 'param.yaml', '-r', 'a.yaml')).stdout).toContain('team: red');
  });

  it('-i, --stdin and --continue-on-fail change nothing', async () => {
    const plain = await apply('team.yaml', '-r', 'a.yaml');
    for (const flag of ['-i', '--stdin', '--continue-on-fail']) expect(await apply('team.yaml', '-r', 'a.yaml', flag)).toEqual(plain);
  });

  it('flags that need what an offline run has not are refused saying why', async () => {
    const cases: [string[], string][] = [
      [['--cluster'], '--cluster: kyverno apply reads resources or data from a cluster'],
      [['-c'], '-c: kyverno apply reads resources or data from a cluster'],
      [['--kubeconfig', 'k'], '--kubeconfig: kyverno apply reads resources or data from a cluster'],
      [['-n', 'shop'], 'amender apply --namespace NS puts the resources in NS'],
      [['--registry'], 'reads image data from a registry'],
      [['--git-branch', 'main'], 'from a git repository'],
      [['-e', 'x.yaml'], '-e: kyverno apply reads PolicyExceptions with it'],
      [['--exceptions-within-policies'], 'PolicyExceptions'],
      [['--target-resources', 't'], 'mutate-existing targets'],
      [['--json', 'p.json'], 'JSON, HTTP or Envoy payloads'],
      [['--context-file', 'c.yaml'], 'cluster data'],
    ];
    for (const [args, text] of cases) {
      const r = await apply('team.yaml', '-r', 'a.yaml', ...args);
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr, args[0]).toContain(text);
    }
  });

  it('short flags as pflag reads them: -rFILE, -r=FILE, and booleans grouped (-ti)', async () => {
    expect((await apply('team.yaml', '-ra.yaml')).names).toEqual(['a']);
    expect((await apply('team.yaml', '-r=a.yaml,b.yaml')).names).toEqual(['a', 'b']);
    const grouped = await apply('team.yaml', '-ra.yaml', '-ti');
    expect(grouped.code).toBe(0);
    expect(grouped.stderr).toContain('│ ID │ POLICY');
    expect((await apply('team.yaml', '-ra.yaml', '-tx')).stderr).toContain('unknown option -tx');
    expect((await apply('team.yaml', '-ra.yaml', '-nshop')).stderr).toContain('-n: kyverno apply reads resources or data from a cluster');
  });

  it('after --, nothing is read as a flag', async () => {
    const r = await apply('-r', 'a.yaml', '--', 'team.yaml');
    expect(r.names).toEqual(['a']);
  });
});
