/**
 * `results[].resourceSpecs` of a kyverno-test.yaml (apis/v1alpha1 TestResourceSpec): Amender refused
 * them ("not supported"). kyverno test picks the resources whose apiVersion (group/version, or version
 * for the core group), namespace and name match a spec, the kind not compared, and reads the specs only
 * when the result also has a `resources` key, even `[]` (commands/test/output.go printTestResult);
 * naming nothing, a result checks every resource.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POLICY = addTeamPolicy(['Pod', 'Deployment']);
const RESOURCES = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: shop}
spec: {containers: [{name: c, image: postgres}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: shop}
spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: postgres}]}}}
`;

async function checked(result: string): Promise<string[]> {
  const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [resources.yaml]
results:
  - ${result}
`;
  const io = fakeIO({ 't/policy.yaml': POLICY, 't/resources.yaml': RESOURCES, 't/kyverno-test.yaml': test });
  const code = await runCli(['test', 't', '-o', 'json'], io);
  expect(io.stderr).not.toContain('Error');
  expect(code).toBe(0);
  return (JSON.parse(io.stdout) as { RESOURCE: string }[]).map((r) => r.RESOURCE);
}

describe('kyverno-test.yaml resourceSpecs', () => {
  it('pick resources by group/version, namespace and name', async () => {
    expect(await checked('{policy: add-team, rule: team, kind: Pod, resources: [], resourceSpecs: [{version: v1, kind: Pod, namespace: shop, name: db}], result: pass}')).toEqual(['v1/Pod/shop/db']);
    expect(await checked('{policy: add-team, rule: team, kind: Deployment, resources: [], resourceSpecs: [{group: apps, version: v1, namespace: shop, name: db}], result: pass}')).toEqual([
      'apps/v1/Deployment/shop/db',
    ]);
  });

  it('add to the resources named', async () => {
    expect(await checked('{policy: add-team, rule: team, kind: Pod, resources: [web], resourceSpecs: [{version: v1, namespace: shop, name: db}], result: pass}')).toEqual([
      'v1/Pod/default/web',
      'v1/Pod/shop/db',
    ]);
  });

  it('are read only beside a resources key, as in Kyverno', async () => {
    expect(await checked('{policy: add-team, rule: team, kind: Pod, resourceSpecs: [{version: v1, namespace: shop, name: db}], result: pass}')).toHaveLength(3);
  });
});
