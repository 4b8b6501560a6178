/**
 * Issue 9, item 8 ("Know which policy"): per-policy and per-Kyverno-rule outcome counters and duration
 * histograms, a `cluster` label on review metrics, and log lines naming the policy and rule that denied,
 * errored or hit a bound, with kind, namespace, name and operation — never object content or secrets.
 * Through the app's `fetch` (createApp), with a cluster route served by a plain lookup.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet, type LogRecord } from '../../src/server/index.js';

const POLICIES = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label-team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"team": "shop"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label-team}
spec: {policyName: label-team}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: grow-text}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  failurePolicy: Ignore
  reinvocationPolicy: Never
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"grown": "a"${'.replace("a", "aaaaaaaaaa")'.repeat(9)}}}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: grow-text}
spec: {policyName: grow-text}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: condition-errs}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  failurePolicy: Ignore
  reinvocationPolicy: Never
  matchConditions:
    - {name: missing-key, expression: 'object.metadata.annotations["no-such-annotation"] == "x"'}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"never": "applied"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: condition-errs}
spec: {policyName: condition-errs}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: owner-from-secret
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
    - name: copy-owner
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchesJson6902: |-
          - op: add
            path: /metadata/annotations/copied
            value: '{{ abs(request.object.metadata.annotations."secret-token") }}'
`;

const SECRET_VALUE = 'hunter2-do-not-log';

function review(): string {
  const r = JSON.parse(readFileSync(new URL('../fixtures/reviews/pod-create.json', import.meta.url), 'utf8'));
  r.request.object.metadata.annotations = { 'secret-token': SECRET_VALUE };
  return JSON.stringify(r);
}

function app() {
  const set = buildPolicySet([parseDocuments('policies.yaml', POLICIES)]);
  expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
  const provider = fixedPolicySet(set, 'test');
  const logs: LogRecord[] = [];
  const amender = createApp({
    policies: provider,
    logger: (r) => logs.push(r),
    limits: { maxValueBytes: 64 * 1024 },
    clusters: { get: (name) => (name === 'prod-eu' ? { verifier: { verify: async (s) => s === 'cluster-secret' }, provider } : undefined) },
  });
  return { amender, logs };
}

const post = (a: ReturnType<typeof app>['amender'], path: string, headers: Record<string, string> = {}) =>
  a.app.fetch(new Request(`http://amender.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: review() }));

describe('know which policy', () => {
  it('counts outcomes and durations per policy and per Kyverno rule, with the cluster on review metrics', async () => {
    const { amender } = app();
    expect((await post(amender, '/mutate')).status).toBe(200);
    expect((await post(amender, '/clusters/prod-eu/mutate', { authorization: 'Bearer cluster-secret' })).status).toBe(200);
    const text = amender.metrics.registry.render();
    expect(text).toContain('amender_reviews_total{outcome="denied"} 1');
    expect(text).toContain('amender_reviews_total{cluster="prod-eu",outcome="denied"} 1');
    expect(text).toContain('amender_review_duration_seconds_count{cluster="prod-eu"} 1');
    for (const set of ['default', 'prod-eu']) {
      expect(text).toContain(`amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-team",policy_set="${set}"} 1`);
      expect(text).toContain(`amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="size",policy="grow-text",policy_set="${set}"} 1`);
      expect(text).toContain(`amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="label-team",policy_set="${set}"} 1`);
      expect(text).toMatch(new RegExp(`amender_kyverno_rule_evaluations_total\\{policy="ClusterPolicy/owner-from-secret",policy_set="${set}",rule="copy-owner",status="[a-z]+"\\} 1`));
      expect(text).toContain(`amender_kyverno_rule_duration_seconds_count{policy="ClusterPolicy/owner-from-secret",policy_set="${set}",rule="copy-owner"} 1`);
    }
  });

  it('logs the policy and rule that failed with the object identity, never its content or the path secret', async () => {
    const { amender, logs } = app();
    expect((await post(amender, '/clusters/prod-eu/cluster-secret/mutate')).status).toBe(200);
    const failures = logs.filter((r) => r.msg !== 'request');
    const grown = failures.find((r) => r.policy === 'grow-text');
    expect(grown).toMatchObject({ level: 'warn', policySet: 'prod-eu', outcome: 'size', failurePolicy: 'Ignore', kind: 'Pod', namespace: 'shop', name: 'checkout', operation: 'CREATE' });
    // A matchCondition that errors under failurePolicy Ignore skips the policy, as kube-apiserver does, and
    // is logged as the ignored error it is, not taken for a condition that is false.
    const condition = failures.find((r) => r.policy === 'condition-errs');
    expect(condition).toMatchObject({ level: 'warn', msg: 'policy error ignored', outcome: 'error_ignored', failurePolicy: 'Ignore', binding: 'condition-errs', kind: 'Pod' });
    const kyverno = failures.find((r) => r.policy === 'ClusterPolicy/owner-from-secret');
    expect(kyverno).toMatchObject({ level: 'warn', msg: 'policy failed', engine: 'Kyverno', rules: ['copy-owner'], denied: true, kind: 'Pod', name: 'checkout' });
    const all = JSON.stringify(logs);
    expect(all).not.toContain(SECRET_VALUE);
    expect(all).not.toContain('cluster-secret');
  });
});
