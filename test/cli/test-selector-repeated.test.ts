/**
 * `amender test --test-case-selector` with a key given more than once, as `kyverno test` reads it
 * (test/filter/filter.go): every `key=value` is a filter a result must pass, and the resource values up to
 * the first `*` (ExtractResourceFilters) narrow the checked resources. Amender kept only the last value of
 * each key: `resource=web,resource=db` checked db alone.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POLICY = addTeamPolicy(['Pod']);
const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec: {containers: [{name: c, image: nginx}]}
`;
const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [pods.yaml]
results:
  - {policy: add-team, rule: team, kind: Pod, resources: [web, db, cache], result: pass}
`;

async function rows(selector: string): Promise<string[]> {
  const io = fakeIO({ 't/policy.yaml': POLICY, 't/pods.yaml': [pod('web'), pod('db'), pod('cache')].join('---\n'), 't/kyverno-test.yaml': TEST });
  expect(await runCli(['test', 't', '-o', 'json', '-t', selector], io)).toBe(0);
  return (JSON.parse(io.stdout) as { RESOURCE: string }[]).map((r) => r.RESOURCE.split('/').pop()!);
}

describe('--test-case-selector with a key given more than once', () => {
  it('narrows to every resource value', async () => {
    expect(await rows('resource=web,resource=db')).toEqual(['web', 'db']);
  });

  it('stops narrowing at a *', async () => {
    expect(await rows('resource=*,resource=web')).toEqual(['web', 'db', 'cache']);
    expect(await rows('resource=db,resource=*,resource=web')).toEqual(['db']);
  });

  it('keeps a result only when it passes every filter', async () => {
    expect(await rows('policy=add-*,policy=*-team')).toEqual(['web', 'db', 'cache']);
    const io = fakeIO({ 't/policy.yaml': POLICY, 't/pods.yaml': pod('web'), 't/kyverno-test.yaml': TEST });
    expect(await runCli(['test', 't', '-o', 'json', '-t', 'policy=other,policy=add-*'], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual([]);
  });
});
