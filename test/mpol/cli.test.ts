/**
 * Kyverno MutatingPolicy / NamespacedMutatingPolicy through the CLI: validate reports what cannot run
 * (with document, field path and reason), apply/review run them on the MutatingAdmissionPolicy engine
 * (own matchConstraints, namespace scope, variables in matchConditions, failurePolicy, autogen), and
 * webhook-config covers their resources.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';
import { CRONJOB, DEPLOYMENT, DNS, NAMESPACED, pod, REGISTRY } from './policies.js';

const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJSON());

describe('amender validate on Kyverno MutatingPolicies', () => {
  it('accepts valid policies of every version and kind, and counts them', async () => {
    const io = fakeIO({ 'p.yaml': [NAMESPACED, REGISTRY, DNS].join('---\n') });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(0);
    expect(io.stdout).toContain('kyvernoMutatingPolicies: 3');
    expect(io.stdout).toContain('mutatingAdmissionPolicies: 0');
  });

  it('refuses cluster and network library calls at load, with the field path and the reason', async () => {
    const policy = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: lookups}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  variables:
    - {name: cm, expression: 'resource.Get("v1", "configmaps", "default", "x")'}
    - {name: gc, expression: 'globalContext.Get("entry", "")'}
  matchConditions:
    - {name: remote, expression: 'http.Get("https://example.com").ok == true'}
  mutations:
    - patchType: JSONPatch
      jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"d": imagedata.Get("nginx").digest}}]'}
`;
    const io = fakeIO({ 'p.yaml': policy });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('p.yaml#0 MutatingPolicy/lookups: spec.variables[0].expression: Forbidden: resource.Get() reads objects from the Kubernetes API');
    expect(io.stderr).toContain('spec.variables[1].expression: Forbidden: globalContext.Get()');
    expect(io.stderr).toContain('spec.matchConditions[0].expression: Forbidden: http.Get() makes HTTP requests');
    expect(io.stderr).toContain('spec.mutations[0].jsonPatch.expression: Forbidden: imagedata.Get() fetches image metadata');
    expect(io.stderr).toContain('1 file refused');
  });

  it('reports mutateExisting, targets, disabled admission, JSON mode and unknown fields', async () => {
    const base = (name: string, extra: string) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: ${name}}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [namespaces]}]}
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'}}]
${extra}`;
    const io = fakeIO({
      'p.yaml': [
        base('existing', '  evaluation: {mutateExisting: {enabled: true}}\n'),
        base('targets', '  evaluation: {mutateExisting: {enabled: true}}\n  targetMatchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}\n'),
        base('background', '  evaluation: {admission: {enabled: false}, mutateExisting: {enabled: true}}\n'),
        base('json', '  evaluation: {mode: JSON}\n'),
        base('typo', '  mutation: []\n'),
      ].join('---\n'),
    });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    const err = io.stderr;
    expect(err).toMatch(/MutatingPolicy\/existing: spec\.evaluation\.mutateExisting\.enabled: .*no webhook can do it.*\(kept/);
    expect(err).toMatch(/MutatingPolicy\/targets: spec\.targetMatchConstraints: Forbidden: .*Kyverno's webhook never runs it at admission.*\(ignored\)/);
    expect(err).toMatch(/MutatingPolicy\/background: spec\.evaluation\.admission\.enabled: false: the policy never runs at admission/);
    expect(err).toMatch(/MutatingPolicy\/json: spec\.evaluation\.mode: Invalid value: "JSON"/);
    expect(err).toMatch(/MutatingPolicy\/typo: spec\.mutation: Forbidden|MutatingPolicy\/typo: spec\.mutation: .*unknown field/);
  });

  it('refuses variables in matchConditions when Kyverno is to generate a native MutatingAdmissionPolicy', async () => {
    const io = fakeIO({ 'p.yaml': REGISTRY.replace('  autogen: {podControllers: {controllers: []}}', '  autogen: {podControllers: {controllers: []}, mutatingAdmissionPolicy: {enabled: true}}') });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('MutatingPolicy/registry: spec.matchConditions[0].expression: Forbidden: variables cannot be referenced in matchConditions');
  });

  it('refuses a policy whose expressions do not compile, as Kyverno refuses it', async () => {
    const bad = REGISTRY.replace("image(c.image)", "image(c.image, 1)");
    const io = fakeIO({ 'p.yaml': bad });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('MutatingPolicy/registry: spec.variables[0].expression: Invalid value');
    expect(io.stderr).toContain("found no matching overload for 'image'");
  });

  it('keeps the Kubernetes environment for MutatingAdmissionPolicies: no Kyverno library there', async () => {
    const map = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  reinvocationPolicy: Never
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"r": image("nginx").registry()}}}'}}]
`;
    const io = fakeIO({ 'p.yaml': map });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    expect(io.stderr).toContain("undeclared reference to 'image'");
  });
});

describe('amender apply on Kyverno MutatingPolicies', () => {
  it('applies a NamespacedMutatingPolicy only in its namespace, and a MutatingPolicy everywhere', async () => {
    const io = fakeIO({ 'p.yaml': [NAMESPACED, REGISTRY].join('---\n'), 'a.yaml': pod('p', 'team-a'), 'b.yaml': pod('p', 'team-b') });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'a.yaml', 'b.yaml'], io)).toBe(0);
    const [a, b] = docs(io.stdout);
    expect(a.metadata.labels).toEqual({ app: 'x', team: 'a' });
    expect(b.metadata.labels).toEqual({ app: 'x' });
    const annotations = { 'registry/library/nginx': 'index.docker.io|latest', 'registry/org/tool': 'ghcr.io|1.2' };
    expect(a.metadata.annotations).toEqual(annotations);
    expect(b.metadata.annotations).toEqual(annotations);
    // One result per policy and resource, as `kyverno apply` reports them.
    expect(io.stderr).toContain('MutatingPolicy registry -> resource team-a/Pod/p: pass (mutated)\n');
    expect(io.stderr).toContain('NamespacedMutatingPolicy team-a/team-label -> resource team-a/Pod/p: pass (mutated)\n');
    expect(io.stderr).not.toContain('team-label -> resource team-b');
    expect(io.stderr).toContain('pass: 3, fail: 0, warn: 0, error: 0, skip: 0\n');
  });

  it('evaluates matchConditions with variables: false skips the policy', async () => {
    const unlabelled = pod('p', 'team-b').replace(', labels: {app: x}', '');
    const io = fakeIO({ 'p.yaml': REGISTRY, 'pod.yaml': unlabelled });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout).metadata.annotations).toBeUndefined();
    expect(io.stderr).toContain('MutatingPolicy registry -> resource team-b/Pod/p: skip (matchCondition "only pods with an app label" is false)\n');
  });

  it('applies autogen variants to Deployments (spec.template) and CronJobs (spec.jobTemplate.spec.template)', async () => {
    const io = fakeIO({ 'p.yaml': DNS, 'd.yaml': DEPLOYMENT, 'c.yaml': CRONJOB, 'pod.yaml': pod('p', 'shop') });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'd.yaml', 'c.yaml', 'pod.yaml'], io)).toBe(0);
    const [d, c, p] = docs(io.stdout);
    const set = (spec: Record<string, unknown>) => [spec.dnsPolicy, spec.enableServiceLinks];
    expect(set(d.spec.template.spec)).toEqual(['ClusterFirst', false]);
    expect(set(d.spec)).toEqual([undefined, undefined]);
    expect(set(c.spec.jobTemplate.spec.template.spec)).toEqual(['ClusterFirst', false]);
    expect(set(p.spec)).toEqual(['ClusterFirst', false]);
  });

  it('limits autogen to spec.autogen.podControllers.controllers', async () => {
    const only = DNS.replace('spec:\n  matchConstraints', 'spec:\n  autogen: {podControllers: {controllers: [cronjobs]}}\n  matchConstraints');
    const io = fakeIO({ 'p.yaml': only, 'd.yaml': DEPLOYMENT, 'c.yaml': CRONJOB });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'd.yaml', 'c.yaml'], io)).toBe(0);
    const [d, c] = docs(io.stdout);
    expect(d.spec.template.spec.dnsPolicy).toBeUndefined();
    expect(c.spec.jobTemplate.spec.template.spec.dnsPolicy).toBe('ClusterFirst');
  });

  it('denies on a runtime error under failurePolicy Fail, and lets the request through under Ignore', async () => {
    const failing = (fp: string) =>
      REGISTRY.replace('metadata: {name: registry}', `metadata: {name: registry-${fp.toLowerCase()}}`)
        .replace('spec:\n  matchConstraints', `spec:\n  failurePolicy: ${fp}\n  matchConstraints`)
        .replace("image(c.image))'", 'image(c.image + ":"))\'');
    const fail = fakeIO({ 'p.yaml': failing('Fail'), 'pod.yaml': pod('p', 'x') });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], fail)).not.toBe(0);
    expect(fail.stderr).toContain('policy "registry-fail" denied request');
    expect(fail.stderr).toContain('could not parse reference');
    const ignore = fakeIO({ 'p.yaml': failing('Ignore'), 'pod.yaml': pod('p', 'x') });
    // Let through, but an error result exits 1 as kyverno apply (test/cli/apply-error-exit.test.ts).
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], ignore)).toBe(1);
    expect(parseYaml(ignore.stdout).metadata.annotations).toBeUndefined();
  });

  it('keeps none of a failing policy\'s changes, as Kyverno returns no patched resource for an evaluation error', async () => {
    const twoMutations = (fp: string) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: half-${fp.toLowerCase()}}
spec:
  failurePolicy: ${fp}
  autogen: {podControllers: {controllers: []}}
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  mutations:
    - {patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"first": "done"}}}'}}
    - {patchType: JSONPatch, jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/annotations/x", value: string(object.spec.nope)}]'}}
`;
    const ignore = fakeIO({ 'p.yaml': twoMutations('Ignore'), 'pod.yaml': pod('p', 'x') });
    // Let through, but an error result exits 1 as kyverno apply (test/cli/apply-error-exit.test.ts).
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], ignore)).toBe(1);
    expect(parseYaml(ignore.stdout).metadata.labels).toEqual({ app: 'x' });
    expect(ignore.stderr).toContain('MutatingPolicy half-ignore -> resource x/Pod/p: error');
    const fail = fakeIO({ 'p.yaml': twoMutations('Fail'), 'pod.yaml': pod('p', 'x') });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], fail)).not.toBe(0);
  });
});

describe("Kyverno's request and namespaceObject", () => {
  it('gives request.object (as admitted) and namespaceObject to matchConditions and mutations', async () => {
    const policy = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: env}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  matchConditions:
    - {name: labelled namespace, expression: 'namespaceObject.metadata.labels.env == "prod"'}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"env": namespaceObject.metadata.labels.env, "first": string(request.object.metadata.name)}}}'}
`;
    const ns = (name: string, env: string) => `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}, labels: {env: ${env}}}\n`;
    const io = fakeIO({
      'p.yaml': [policy, ns('shop', 'prod'), ns('lab', 'dev')].join('---\n'),
      'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: lab}\n',
    });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], io)).toBe(0);
    const [shop, lab] = docs(io.stdout);
    expect(shop.metadata.labels).toEqual({ env: 'prod', first: 'c' });
    expect(lab.metadata.labels).toBeUndefined();
  });

  it('keeps request.object out of the Kubernetes environment', async () => {
    const map = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  reinvocationPolicy: Never
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"n": request.object.metadata.name}}}'}}]
`;
    const io = fakeIO({ 'p.yaml': map });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    expect(io.stderr).toContain("undefined field 'object'");
  });
});

describe('reinvocation of Kyverno MutatingPolicies', () => {
  const copy = (policy: string) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: a-copy}
spec:
  reinvocationPolicy: ${policy}
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{annotations: {"tier": object.metadata.?labels.tier.orValue("none")}}}'
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: b-tier}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"tier": "gold"}}}'}
`;
  const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: x}\n';

  // Kyverno runs each MutatingPolicy once (mpol/engine/engine.go Handle) and registers its webhook without a
  // reinvocationPolicy (controller.go buildForJSONPoliciesMutation): spec.reinvocationPolicy is read by nothing.
  it('runs a policy once whatever its reinvocationPolicy says, and asks the webhook for no reinvocation', async () => {
    for (const policy of ['IfNeeded', 'Never']) {
      const io = fakeIO({ 'p.yaml': copy(policy), 'cm.yaml': cm });
      expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], io)).toBe(0);
      expect(parseYaml(io.stdout).metadata).toMatchObject({ labels: { tier: 'gold' }, annotations: { tier: 'none' } });
      const hook = fakeIO({ 'p.yaml': copy(policy) });
      expect(await runCli(['webhook-config', '--url', 'https://a.example/mutate', '--policies', 'p.yaml', '--json'], hook)).toBe(0);
      expect(JSON.parse(hook.stdout).webhooks[0].reinvocationPolicy).toBe('Never');
    }
  });
});

describe('amender review and webhook-config on Kyverno MutatingPolicies', () => {
  it('answers an AdmissionReview with the patch of a NamespacedMutatingPolicy', async () => {
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u1',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: 'team-a',
        operation: 'CREATE',
        userInfo: { username: 'u' },
        object: parseYaml(pod('p', 'team-a')),
      },
    };
    const io = fakeIO({ 'p.yaml': NAMESPACED, 'review.json': JSON.stringify(review) });
    expect(await runCli(['review', '--policies', 'p.yaml', '--input', 'review.json'], io)).toBe(0);
    const reply = JSON.parse(io.stdout);
    expect(reply.response).toMatchObject({ uid: 'u1', allowed: true, patchType: 'JSONPatch' });
    expect(JSON.parse(atob(reply.response.patch))).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'a' }]);
  });

  it('derives webhook rules from matchConstraints and the autogen controllers', async () => {
    const io = fakeIO({ 'p.yaml': DNS });
    expect(await runCli(['webhook-config', '--url', 'https://amender.example/mutate', '--policies', 'p.yaml', '--json'], io)).toBe(0);
    const config = JSON.parse(io.stdout);
    const rules = config.webhooks[0].rules.map((r: { apiGroups: string[]; resources: string[] }) => `${r.apiGroups[0]}:${r.resources.join(',')}`);
    expect(rules).toEqual(['apps:daemonsets,deployments,replicasets,statefulsets', 'batch:cronjobs,jobs', ':pods']);
    expect(io.stderr).toContain('MutatingPolicy/dns: CREATE');
  });
});

describe('amender eval --kyverno', () => {
  it("evaluates in the environment of Kyverno's MutatingPolicy, and only with the flag", async () => {
    const io = fakeIO({});
    expect(await runCli(['eval', '--kyverno', '--expression', '[image("nginx:1.2").repository(), regex.replace("a.b", "[.]", "/")]'], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual({ value: ['library/nginx', 'a/b'], type: 'list(string)' });
    const plain = fakeIO({});
    expect(await runCli(['eval', '--expression', 'image("nginx")'], plain)).toBe(1);
    expect(plain.stderr).toContain("undeclared reference to 'image'");
  });
});

describe('amender test with MutatingAdmissionPolicies, MutatingPolicies and ClusterPolicies together', () => {
  const POLICIES = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: map-label}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  reinvocationPolicy: Never
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"map": "yes"}}}'}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: map-label}
spec: {policyName: map-label}
---
apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: mpol-label}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"mpol": object.metadata.labels.map}}}'}}]
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: classic}
spec:
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {classic: "{{ request.object.metadata.labels.mpol }}"}}}}
`;
  const labelled = (labels: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, labels: {${labels}}}\nspec: {containers: [{name: c, image: nginx}]}\n`;
  const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: mixed}
policies: [policies.yaml]
resources: [pod.yaml]
results:
  - {policy: map-label, resources: [p], kind: Pod, result: pass, isMutatingAdmissionPolicy: true, patchedResources: map.yaml}
  - {policy: mpol-label, resources: [p], kind: Pod, result: pass, isMutatingPolicy: true, patchedResources: mpol.yaml}
  - {policy: classic, rule: r, resources: [p], kind: Pod, result: pass, patchedResources: classic.yaml}
`;

  it('runs them in the webhook\'s order, each patched resource cumulative, and says where Kyverno\'s CLI differs', async () => {
    const io = fakeIO({
      't/kyverno-test.yaml': TEST,
      't/policies.yaml': POLICIES,
      't/pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx}]}\n',
      't/map.yaml': labelled('map: "yes"'),
      't/mpol.yaml': labelled('map: "yes", mpol: "yes"'),
      't/classic.yaml': labelled('map: "yes", mpol: "yes", classic: "yes"'),
    });
    expect(await runCli(['test', 't'], io)).toBe(0);
    expect(io.stdout).toContain('note: Kyverno MutatingPolicies run before the ClusterPolicies/Policies, as in Amender\'s webhook');
    expect(io.stdout).toContain('Applying 3 policies to 1 resource');
    expect(io.stdout).toContain('Test Summary: 3 tests passed and 0 tests failed');
  });
});
