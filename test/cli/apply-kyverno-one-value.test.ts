/**
 * kyverno apply's value flags take one argument each, as pflag reads them: in
 * `kyverno apply -r pod.yaml policy.yaml` policy.yaml is a policy path (a positional argument after the
 * flag), and `--parameter-resource a.yaml,b.yaml` names two files (a StringSlice read as CSV;
 * commands/apply/command.go StringSliceVarP resource/resources/parameter-resource, StringSliceVar
 * crd-paths). Amender read -r and --resources as its list option (every argument up to the next option),
 * so the policy was taken as a resource and the command failed ('--policies PATH... is required'), and
 * it passed --parameter-resource/--crd-paths values to the policy set unsplit ('cannot read policies from
 * a.yaml,b.yaml'). Amender's own --resource keeps taking several paths.
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
`;
const BINDING = `apiVersion: admissionregistration.k8s.io/v1
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
  const io = fakeIO({ 'team.yaml': addTeamPolicy(['Pod']), 'map.yaml': PARAM_MAP, 'binding.yaml': BINDING, 'param.yaml': PARAM, 'a.yaml': pod('a'), 'b.yaml': pod('b') });
  const code = await runCli(['apply', ...args], io);
  const docs = code === 0 ? parseAllDocuments(io.stdout).map((d) => d.toJS()) : [];
  return { code, docs, names: docs.map((d) => d?.metadata?.name), stderr: io.stderr };
}

describe('kyverno apply value flags take one argument', () => {
  it('-r FILE then a policy path', async () => {
    for (const args of [['-r', 'a.yaml', 'team.yaml'], ['--resources', 'a.yaml', 'team.yaml'], ['-r', 'a.yaml', 'team.yaml', '-r', 'b.yaml']]) {
      const r = await apply(...args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.names, args.join(' ')).toEqual(args.includes('b.yaml') ? ['a', 'b'] : ['a']);
      expect(r.docs[0].metadata.labels).toEqual({ team: 'blue' });
    }
  });

  it('other value flags too: -s/--set (-f/-u/-o take one value anyway)', async () => {
    for (const set of ['-s', '--set']) {
      const r = await apply('-r', 'a.yaml', set, 'x=y', 'team.yaml');
      expect(r.code, set).toBe(0);
      expect(r.names, set).toEqual(['a']);
    }
  });

  it('--parameter-resource and --crd-paths: comma-separated files, one argument', async () => {
    const r = await apply('map.yaml', '--parameter-resource', 'param.yaml,binding.yaml', '-r', 'a.yaml');
    expect(r.code).toBe(0);
    expect(r.docs[0].metadata.labels).toEqual({ team: 'red' });
    const s = await apply('--crd-paths', 'param.yaml', 'map.yaml', 'binding.yaml', '-r', 'a.yaml');
    expect(s.code).toBe(0);
    expect(s.docs[0].metadata.labels).toEqual({ team: 'red' });
  });

  it("Amender's --resource still takes several paths, and says so when no policy is left", async () => {
    expect((await apply('team.yaml', '--resource', 'a.yaml', 'b.yaml')).names).toEqual(['a', 'b']);
    const r = await apply('--resource', 'a.yaml', 'team.yaml');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--policies PATH... is required (--resource takes every path up to the next option: give the policy paths first, or -r FILE as in kyverno)');
  });

  it('a flag with no value before another option is a wrong command line', async () => {
    const r = await apply('team.yaml', '-r', '-s', 'x=y');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('option --resource needs at least one value');
  });
});
