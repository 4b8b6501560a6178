/**
 * `amender apply` sends a resource as the API server would, and the API server's decoder refuses
 * ObjectMeta of the wrong types before any admission webhook runs (metadata is a typed struct: labels and
 * annotations map[string]string, name and namespace strings). Before, `metadata: 5` was silently replaced
 * by `{namespace: default}` (the resource printed without it), and `labels: {x: 1}` or `name: 5` were
 * reviewed and printed as no cluster could store them.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const pod = (metadata: string) => `apiVersion: v1
kind: Pod
metadata: ${metadata}
spec: {containers: [{name: c, image: nginx}]}
`;

async function apply(metadata: string, ...args: string[]) {
  const io = fakeIO({ 'team.yaml': addTeamPolicy(['Pod']), 'pod.yaml': pod(metadata), 'ok.yaml': pod('{name: ok}') });
  const code = await runCli(['apply', 'team.yaml', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('amender apply: metadata the API server refuses', () => {
  it.each([
    ['5', 'metadata is 5, not an object'],
    ['[a]', 'metadata is ["a"], not an object'],
    ['{name: 5}', 'metadata.name is 5, not a string'],
    ['{name: a, namespace: {x: z}}', 'metadata.namespace is {"x":"z"}, not a string'],
    ['{name: a, labels: {version: 1.0}}', 'metadata.labels.version is 1, not a string (quote it)'],
    ['{name: a, labels: {enabled: yes}}', 'metadata.labels.enabled is true, not a string (quote it)'],
    ['{name: a, annotations: [x]}', 'metadata.annotations is ["x"], not a map of strings'],
  ])('metadata: %s is refused, naming the field', async (metadata, text) => {
    const r = await apply(metadata, '-r', 'pod.yaml');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`pod.yaml: ${text}: the API server refuses such an object before admission`);
  });

  it('the --old object too', async () => {
    const r = await apply('5', '-r', 'ok.yaml', '--old', 'pod.yaml', '--operation', 'UPDATE');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pod.yaml: metadata is 5, not an object');
  });

  it('null fields and a null label value are taken, as the decoder takes them', async () => {
    const r = await apply('{name: a, labels: {x: null}, annotations: null, uid: null}', '-r', 'pod.yaml');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('team: blue');
  });
});
