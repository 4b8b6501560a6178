/**
 * Kyverno MutatingPolicies served over HTTP (the app on the Node adapter, loopback): the patch in the
 * AdmissionReview reply, the namespace scope, the engine named in the metrics, and /readyz counting them and
 * listing the problems of the ones that cannot run off-cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { fixedPolicySet } from '../../src/server/index.js';
import { policySetFrom, reviewOf, startTestServer, type TestServer } from '../server/helpers.js';
import { DEPLOYMENT, DNS, NAMESPACED, pod, REGISTRY } from './policies.js';

const LOOKUP = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: lookup}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  variables: [{name: ns, expression: 'resource.Get("v1", "namespaces", "", object.metadata.namespace)'}]
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"x": "y"}}}'}}]
`;

async function review(t: TestServer, object: unknown, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${t.url}/mutate`, {
    method: 'POST',
    body: JSON.stringify(reviewOf(object as Record<string, unknown>, extra)),
    headers: { 'content-type': 'application/json' },
    signal: AbortSignal.timeout(5000),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { response: { allowed: boolean; patch?: string; status?: { message: string } } };
  return { ...body.response, ops: body.response.patch ? JSON.parse(atob(body.response.patch)) : [] };
}

describe('Kyverno MutatingPolicies over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    const set = policySetFrom([NAMESPACED, REGISTRY, DNS, LOOKUP].join('---\n'), 'mpol.yaml');
    t = await startTestServer({ policies: fixedPolicySet(set, 'file:///policies') });
  });
  afterAll(() => t.close());

  it('answers with the JSON Patch of every policy that applies, the namespaced one only in its namespace', async () => {
    const a = await review(t, parseYaml(pod('p', 'team-a')));
    expect(a.allowed).toBe(true);
    const paths = a.ops.map((o: { path: string }) => o.path).sort();
    expect(paths).toEqual(['/metadata/annotations', '/metadata/labels/team', '/spec/dnsPolicy', '/spec/enableServiceLinks']);
    const b = await review(t, parseYaml(pod('p', 'team-b')));
    expect(b.ops.map((o: { path: string }) => o.path)).not.toContain('/metadata/labels/team');
    expect(b.ops.find((o: { path: string }) => o.path === '/metadata/annotations').value).toEqual({
      'registry/library/nginx': 'index.docker.io|latest',
      'registry/org/tool': 'ghcr.io|1.2',
    });
  });

  it('mutates a Deployment through the autogen variant', async () => {
    const d = await review(t, parseYaml(DEPLOYMENT), { resource: { group: 'apps', version: 'v1', resource: 'deployments' } });
    expect(d.ops).toEqual([
      { op: 'add', path: '/spec/template/spec/dnsPolicy', value: 'ClusterFirst' },
      { op: 'add', path: '/spec/template/spec/enableServiceLinks', value: false },
    ]);
  });

  it('counts evaluations under the MutatingPolicy engine in /metrics', async () => {
    await review(t, parseYaml(pod('q', 'team-a')));
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/amender_policy_evaluations_total\{engine="MutatingPolicy",outcome="mutated",policy="team-a\/team-label",policy_set="default"\} [1-9]/);
  });

  it('counts the policies in /readyz and lists why the cluster-bound one was refused', async () => {
    const body = (await (await fetch(`${t.url}/readyz`)).json()) as { counts: Record<string, number>; problems: { kind: string; name: string; path: string; message: string; effect: string }[] };
    expect(body.counts).toMatchObject({ kyvernoMutatingPolicies: 3, mutatingAdmissionPolicies: 0 });
    expect(body.problems).toContainEqual(
      expect.objectContaining({ kind: 'MutatingPolicy', name: 'lookup', path: 'spec.variables[0].expression', effect: 'ignored', message: expect.stringContaining('resource.Get() reads objects from the Kubernetes API') }),
    );
    // The refused policy does nothing: its label is never added.
    const a = await review(t, parseYaml(pod('p', 'team-b')));
    expect(a.ops.map((o: { path: string }) => o.path)).not.toContain('/metadata/labels/x');
  });
});
