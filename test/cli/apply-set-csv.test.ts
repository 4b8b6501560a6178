/**
 * kyverno apply's -s/--set is a pflag StringSlice, whose values are read as lines of CSV
 * (commands/apply/command.go StringSliceVarP "set"; pflag readAsCSV): `-s '"msg=a, b",team=x'` gives
 * `msg=a, b` and `team=x`, empty fields (`a=1,`) are dropped by kyverno's variables/parse.go, and a bare
 * quote inside a field fails the command line. Amender split each value at every comma, so a quoted value
 * with a comma was refused ('"msg=a': expected key=value).
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: note}
spec:
  rules:
    - name: note
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {annotations: {note: "{{ msg }}", team: "{{ team }}"}}
`;
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;

async function apply(...set: string[]) {
  const io = fakeIO({ 'p.yaml': POLICY, 'pod.yaml': POD });
  const code = await runCli(['apply', 'p.yaml', '-r', 'pod.yaml', ...set], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('amender apply --set values as CSV', () => {
  it('a quoted field keeps its comma', async () => {
    const r = await apply('-s', '"msg=hello, world",team=x');
    expect(r.code).toBe(0);
    expect(parse(r.stdout).metadata.annotations).toEqual({ note: 'hello, world', team: 'x' });
  });

  it('a doubled quote inside a quoted field is a quote; empty fields are dropped', async () => {
    const r = await apply('--set', '"msg=say ""hi""",', '--set', 'team=y');
    expect(r.code).toBe(0);
    expect(parse(r.stdout).metadata.annotations).toEqual({ note: 'say "hi"', team: 'y' });
  });

  it('a bare quote is a wrong command line', async () => {
    for (const bad of ['msg="a,b"', '"msg=a', '"msg=a"b']) {
      const r = await apply('-s', bad, '-s', 'team=x');
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain(`--set ${bad}: `);
    }
  });
});
