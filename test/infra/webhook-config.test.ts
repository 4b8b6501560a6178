/**
 * `amender webhook-config` through the CLI: rules that cover exactly what a policy set can match (MAP
 * constraints narrowed by bindings, Kyverno kinds mapped to resources), the options, and a manifest
 * that passes the API server's rule checks and the schema of MutatingWebhookConfiguration.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MutatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { builtinKindTable, ruleProblems, type WebhookRule } from '../../src/webhook-config/index.js';
import { fakeIO } from '../cli/fake-io.js';
import { ROOT } from '../node/built.js';
import { TEST_CA_PEM } from '../fixtures/test-ca.js';

const URL_ = 'https://amender.example.com/mutate';

interface Webhook {
  name: string;
  rules: WebhookRule[];
  failurePolicy: string;
  reinvocationPolicy: string;
  timeoutSeconds: number;
  matchPolicy: string;
  sideEffects: string;
  admissionReviewVersions: string[];
  clientConfig: { url: string; caBundle?: string };
  namespaceSelector?: { matchExpressions: { key: string; operator: string; values: string[] }[] };
}

async function run(files: Record<string, string>, ...args: string[]) {
  const io = fakeIO(files);
  const code = await runCli(['webhook-config', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** Runs the command and checks what it printed like the API server would; returns the webhook. */
async function generate(files: Record<string, string>, ...args: string[]): Promise<{ webhook: Webhook; stderr: string; manifest: Record<string, unknown> }> {
  const { code, stdout, stderr } = await run(files, '--url', URL_, ...args);
  expect(code, stderr).toBe(0);
  const manifest = parse(stdout) as Record<string, unknown>;
  new MutatingWebhookConfiguration(manifest as never).validate();
  const webhook = (manifest.webhooks as Webhook[])[0];
  expect(webhook.rules.flatMap((r, i) => ruleProblems(r, `rules[${i}]`))).toEqual([]);
  return { webhook, stderr, manifest };
}

function repositoryPolicies(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const f of readdirSync(join(ROOT, 'policies'))) if (f.endsWith('.yaml')) files[`policies/${f}`] = readFileSync(join(ROOT, 'policies', f), 'utf8');
  return files;
}

const rule = (operations: string[], apiGroups: string[], apiVersions: string[], resources: string[], scope = '*'): WebhookRule =>
  ({ operations, apiGroups, apiVersions, resources, scope }) as WebhookRule;

function map(name: string, rules: string, binding?: string | null, extra = ''): string {
  const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  failurePolicy: Ignore
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
${rules}
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]'}
${extra}`;
  if (binding === null) return policy;
  return `${policy}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec:
  policyName: ${name}
${binding ?? ''}`;
}

function kyverno(name: string, match: string, extra = ''): string {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
${extra}  rules:
  - name: label
    match:
${match}
    mutate:
      patchStrategicMerge:
        metadata:
          labels: {touched: "yes"}
`;
}

describe('amender webhook-config: MutatingAdmissionPolicies', () => {
  it('covers the repository policies exactly, with the policies\' failure and reinvocation policies', async () => {
    const { webhook, stderr, manifest } = await generate(repositoryPolicies(), '--policies', 'policies');
    expect(webhook.rules).toEqual([rule(['CREATE'], ['apps'], ['v1'], ['deployments']), rule(['CREATE'], [''], ['v1'], ['pods'])]);
    expect(webhook).toMatchObject({
      name: 'amender.webhook.amender.dev',
      admissionReviewVersions: ['v1'],
      clientConfig: { url: URL_ },
      matchPolicy: 'Equivalent',
      sideEffects: 'None',
      failurePolicy: 'Fail',
      reinvocationPolicy: 'IfNeeded', // inject-log-shipper says IfNeeded
      timeoutSeconds: 10,
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
    });
    expect(manifest).toMatchObject({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'amender' } });
    expect(stderr).toContain('MutatingAdmissionPolicy/inject-log-shipper: CREATE core/v1 pods');
  });

  it('narrows a policy by its binding\'s resourceRules, and leaves out a policy nothing binds', async () => {
    const files = {
      'a.yaml': map(
        'pods-and-services',
        '    - {operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [pods, services], scope: Namespaced}',
        '  matchResources:\n    resourceRules:\n    - {operations: [UPDATE, CONNECT], apiGroups: ["*"], apiVersions: ["*"], resources: [services, "services/status"]}\n',
      ),
      'b.yaml': map('unbound', '    - {operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}', null),
    };
    const { webhook, stderr } = await generate(files, '--policies', 'a.yaml', 'b.yaml');
    expect(webhook.rules).toEqual([rule(['UPDATE'], [''], ['v1'], ['services'], 'Namespaced')]);
    expect(webhook.failurePolicy).toBe('Ignore'); // every contributing policy says Ignore
    expect(webhook.reinvocationPolicy).toBe('Never');
    expect(stderr).toContain('not covered: MutatingAdmissionPolicy/unbound: no binding');
  });

  it('keeps wildcards and subresources the format can express, and merges what it can', async () => {
    const files = {
      'a.yaml': map('scale', '    - {operations: [UPDATE], apiGroups: [apps], apiVersions: ["*"], resources: ["*/scale"]}'),
      'b.yaml': map('status', '    - {operations: [UPDATE], apiGroups: [apps], apiVersions: ["*"], resources: ["deployments/status"]}'),
      'c.yaml': map('deploy', '    - {operations: [UPDATE], apiGroups: [apps], apiVersions: ["*"], resources: [deployments, "deployments/scale"]}'),
    };
    const { webhook } = await generate(files, '--policies', 'a.yaml', 'b.yaml', 'c.yaml');
    // deployments/scale is inside */scale: dropped, not repeated.
    expect(webhook.rules).toEqual([rule(['UPDATE'], ['apps'], ['*'], ['*/scale', 'deployments', 'deployments/status'])]);
  });

  it('reads res/* as the resource and its subresources, as kube-apiserver\'s rule matcher does (rules.go: a missing subresource is "", which `*` matches)', async () => {
    const files = {
      // pods/* narrowed to plain resources: pods itself is left, not nothing.
      'a.yaml': map(
        'pods-all',
        '    - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: ["pods/*"]}',
        '  matchResources:\n    resourceRules:\n    - {operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}\n',
      ),
      // deployments/* already holds deployments: one pattern, not both.
      'b.yaml': map('deploy', '    - {operations: [UPDATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments, "deployments/*"]}'),
    };
    const { webhook } = await generate(files, '--policies', 'a.yaml', 'b.yaml');
    expect(webhook.rules).toEqual([rule(['UPDATE'], ['apps'], ['v1'], ['deployments/*']), rule(['CREATE'], [''], ['v1'], ['pods'])]);
  });

  it('leaves DELETE out of a policy\'s `*` operations: the engine never mutates a deletion (dispatch.ts isMutableRequest), and a DELETE sent under failurePolicy Fail only risks blocking it', async () => {
    const files = { 'a.yaml': map('every', '    - {operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}') };
    const { webhook } = await generate(files, '--policies', 'a.yaml');
    expect(webhook.rules).toEqual([rule(['CONNECT', 'CREATE', 'UPDATE'], ['*'], ['*'], ['*'])]);
  });

  it('warns when the webhook takes a policy\'s resource in a version it does not name: the request goes unconverted, where kube-apiserver converts it for the policy (matchPolicy Equivalent)', async () => {
    const hpa = (name: string, version: string, extra = '') =>
      map(name, `    - {operations: [CREATE], apiGroups: [autoscaling], apiVersions: [${version}], resources: [horizontalpodautoscalers]}\n${extra}`);
    const anyHpa = kyverno('hpa', '      any:\n      - resources: {kinds: [HorizontalPodAutoscaler]}\n');
    const { stderr } = await generate({ 'a.yaml': hpa('hpa-v2', 'v2'), 'k.yaml': anyHpa }, '--policies', 'a.yaml', 'k.yaml');
    expect(stderr).toContain('warning: MutatingAdmissionPolicy/hpa-v2: the webhook also takes autoscaling/v1 horizontalpodautoscalers for other policies');
    // Two policies, one version each: each misses the other's.
    const both = await generate({ 'a.yaml': hpa('hpa-v2', 'v2'), 'b.yaml': hpa('hpa-v1', 'v1') }, '--policies', 'a.yaml', 'b.yaml');
    expect(both.stderr).toContain('MutatingAdmissionPolicy/hpa-v1: the webhook also takes autoscaling/v2 horizontalpodautoscalers');
    expect(both.stderr).toContain('MutatingAdmissionPolicy/hpa-v2: the webhook also takes autoscaling/v1 horizontalpodautoscalers');
    // Exact asks for no conversion; Pods are served in v1 only; a policy alone is converted for.
    const exact = await generate({ 'a.yaml': hpa('hpa-v2', 'v2', '    matchPolicy: Exact\n'), 'k.yaml': anyHpa }, '--policies', 'a.yaml', 'k.yaml');
    const pods = await generate(
      { 'a.yaml': map('pods', '    - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}'), 'k.yaml': kyverno('pods', '      any:\n      - resources: {kinds: [Pod]}\n') },
      '--policies', 'a.yaml', 'k.yaml',
    );
    const alone = await generate({ 'a.yaml': hpa('hpa-v2', 'v2') }, '--policies', 'a.yaml');
    for (const r of [exact, pods, alone]) expect(r.stderr).not.toContain('the webhook also takes');
  });

  it('leaves out the operations an excludeResourceRules entry takes from a whole rule (kube-apiserver excludes each such request)', async () => {
    // UPDATE of pods excluded; an exclusion of named objects only is left to Amender.
    const rules = `    - {operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}
    - {operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}
    excludeResourceRules:
    - {operations: [UPDATE], apiGroups: [""], apiVersions: ["*"], resources: [pods]}
    - {operations: ["*"], apiGroups: [""], apiVersions: [v1], resources: [configmaps], resourceNames: [kube-root-ca.crt]}`;
    const files = { 'a.yaml': map('some', rules) };
    const { webhook } = await generate(files, '--policies', 'a.yaml');
    expect(webhook.rules).toEqual([rule(['CREATE', 'UPDATE'], [''], ['v1'], ['configmaps']), rule(['CREATE'], [''], ['v1'], ['pods'])]);
    // A binding that excludes everything its policy matches: nothing to send, and why.
    const all = {
      'b.yaml': map(
        'none',
        '    - {operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}',
        '  matchResources:\n    excludeResourceRules:\n    - {operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}\n',
      ),
    };
    const { code, stderr } = await run(all, '--url', URL_, '--policies', 'b.yaml');
    expect(code).toBe(1);
    expect(stderr).toContain('MutatingAdmissionPolicy/none: its excludeResourceRules take out every request its resourceRules match');
  });

  it('refuses a set that matches nothing', async () => {
    const { code, stderr } = await run({ 'b.yaml': map('unbound', '    - {operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"]}', null) }, '--url', URL_, '--policies', 'b.yaml');
    expect(code).toBe(1);
    expect(stderr).toContain('the policy set matches no request');
  });
});

describe('amender webhook-config: Kyverno kinds', () => {
  it('maps kinds to resources: built-ins, versions, groups, subresources, operations', async () => {
    const files = {
      'k.yaml': kyverno(
        'many',
        `      any:
      - resources: {kinds: [Pod, apps/v1/Deployment, Event]}
      - resources: {kinds: [Service/status], operations: [UPDATE]}
      - resources: {kinds: [batch/*/Job], operations: [CREATE, DELETE]}
`,
      ),
    };
    const { webhook } = await generate(files, '--policies', 'k.yaml');
    expect(webhook.rules).toEqual([
      rule(['CREATE', 'UPDATE'], ['apps'], ['v1'], ['deployments']),
      rule(['CREATE'], ['batch'], ['*'], ['jobs']), // DELETE dropped: the Kyverno engine never mutates a deletion
      rule(['CREATE', 'UPDATE'], ['events.k8s.io'], ['*'], ['events']),
      // Event is a kind of two groups; Pod rules also get ephemeral-container updates (as in Kyverno).
      rule(['CREATE', 'UPDATE'], [''], ['*'], ['events', 'pods', 'pods/ephemeralcontainers']),
      rule(['UPDATE'], [''], ['*'], ['services/status']),
    ]);
  });

  it('asks for reinvocation IfNeeded for a ClusterPolicy, as Kyverno registers its resource webhooks (controller.go)', async () => {
    const { webhook } = await generate({ 'k.yaml': kyverno('once', '      any:\n      - resources: {kinds: [ConfigMap]}\n') }, '--policies', 'k.yaml');
    expect(webhook.reinvocationPolicy).toBe('IfNeeded');
    const never = await generate({ 'k.yaml': kyverno('once', '      any:\n      - resources: {kinds: [ConfigMap]}\n') }, '--policies', 'k.yaml', '--reinvocation-policy', 'Never');
    expect(never.webhook.reinvocationPolicy).toBe('Never');
  });

  it('covers the controllers of autogen rules', async () => {
    const files = { 'k.yaml': kyverno('auto', '      any:\n      - resources: {kinds: [Pod]}\n').replace('  annotations: {pod-policies.kyverno.io/autogen-controllers: none}\n', '') };
    const { webhook } = await generate(files, '--policies', 'k.yaml');
    const resources = webhook.rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((res) => `${g}/${res}`))).sort();
    expect(resources).toEqual(expect.arrayContaining(['/pods', 'apps/daemonsets', 'apps/deployments', 'apps/statefulsets', 'batch/cronjobs', 'batch/jobs']));
  });

  it('sends a Pod\'s ephemeral-container updates for kind *, as Kyverno\'s webhook does (utils_webhook.go) and its CheckKind matches them', async () => {
    const files = {
      'k.yaml': kyverno('every', '      any:\n      - resources: {kinds: ["*"]}\n', '  background: false\n'),
      'a.yaml': kyverno('apps', '      any:\n      - resources: {kinds: ["apps/v1/*"]}\n'),
    };
    const { webhook } = await generate(files, '--policies', 'k.yaml', 'a.yaml');
    expect(webhook.rules).toEqual([rule(['CREATE', 'UPDATE'], ['*'], ['*'], ['*', 'pods/ephemeralcontainers'])]);
    const apps = await generate({ 'a.yaml': files['a.yaml'] }, '--policies', 'a.yaml');
    expect(apps.webhook.rules).toEqual([rule(['CREATE', 'UPDATE'], ['apps'], ['v1'], ['*'])]);
  });

  it('intersects the filters of match.all', async () => {
    const files = {
      'k.yaml': kyverno('all', '      all:\n      - resources: {kinds: [Pod, Deployment]}\n      - resources: {kinds: [Pod], operations: [CREATE]}\n'),
    };
    const { webhook } = await generate(files, '--policies', 'k.yaml');
    expect(webhook.rules).toEqual([rule(['CREATE'], [''], ['*'], ['pods', 'pods/ephemeralcontainers'])]);
  });

  it('leaves out what an exclude filter of kinds and operations alone takes out, as Kyverno\'s webhook does (collectResourceDescriptions)', async () => {
    const match = `      any:
      - resources: {kinds: [Pod, ConfigMap, Secret, apps/v1/Deployment]}
`;
    const exclude = `    exclude:
      any:
      - resources: {kinds: [Pod], operations: [UPDATE]}
      - resources: {kinds: [Secret]}
      - resources: {kinds: [ConfigMap], namespaces: [kube-public]}
      - resources: {kinds: [apps/v1/Deployment], operations: [CREATE]}
        subjects: [{kind: User, name: ci}]
`;
    const files = { 'k.yaml': kyverno('ex', match, '  background: false\n').replace('    mutate:\n', `${exclude}    mutate:\n`) };
    const { webhook } = await generate(files, '--policies', 'k.yaml');
    expect(webhook.rules).toEqual([
      rule(['CREATE', 'UPDATE'], ['apps'], ['v1'], ['deployments']), // a user criterion: left to Amender
      rule(['CREATE', 'UPDATE'], [''], ['*'], ['configmaps']), // a namespace criterion: left to Amender
      rule(['CREATE'], [''], ['*'], ['pods', 'pods/ephemeralcontainers']),
    ]);
    // Every operation of every kind excluded: nothing to send.
    const all = { 'k.yaml': kyverno('ex', '      any:\n      - resources: {kinds: [Pod]}\n', '  background: false\n').replace('    mutate:\n', '    exclude:\n      resources: {kinds: ["*"]}\n    mutate:\n') };
    const { code, stderr } = await run(all, '--url', URL_, '--policies', 'k.yaml');
    expect(code, stderr).toBe(1);
    expect(stderr).toContain('ClusterPolicy/ex: no mutate rule that runs at admission matches any resource');
  });

  it('sends a namespaced Policy only namespaced requests: it never acts on a cluster-scoped object or a Namespace (as Kyverno scopes its wildcard kinds)', async () => {
    const policy = kyverno('every', '      any:\n      - resources: {kinds: ["*"]}\n', '  background: false\n').replace('kind: ClusterPolicy\nmetadata:\n', 'kind: Policy\nmetadata:\n  namespace: team-a\n');
    const { webhook } = await generate({ 'k.yaml': policy }, '--policies', 'k.yaml');
    expect(webhook.rules).toEqual([rule(['CREATE', 'UPDATE'], ['*'], ['*'], ['*', 'pods/ephemeralcontainers'], 'Namespaced')]);
  });

  it('warns of a namespaced policy whose namespace the webhook excludes: it is never sent a request', async () => {
    const policy = (ns: string) => kyverno('in-ns', '      any:\n      - resources: {kinds: [ConfigMap]}\n').replace('kind: ClusterPolicy\nmetadata:\n', `kind: Policy\nmetadata:\n  namespace: ${ns}\n`);
    const { stderr } = await generate({ 'k.yaml': policy('kube-system') }, '--policies', 'k.yaml');
    expect(stderr).toContain('warning: Policy/kube-system/in-ns: it acts only in namespace kube-system, which the webhook excludes (--exclude-namespace): it will never run');
    const shop = await generate({ 'k.yaml': policy('shop') }, '--policies', 'k.yaml', '--exclude-namespace', 'kube-system', 'shop');
    expect(shop.stderr).toContain('warning: Policy/shop/in-ns: it acts only in namespace shop');
    const fine = await generate({ 'k.yaml': policy('shop') }, '--policies', 'k.yaml');
    expect(fine.stderr).not.toContain('will never run');
  });

  it('takes a custom kind\'s resource from its CustomResourceDefinition in the policy set', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: certificates.cert-manager.io}
spec:
  group: cert-manager.io
  names: {kind: Certificate, plural: certificates, singular: certificate, listKind: CertificateList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
    const { webhook } = await generate({ 'k.yaml': kyverno('certs', '      any:\n      - resources: {kinds: [Certificate, v1/Certificate/status]}\n'), 'crd.yaml': crd }, '--policies', 'k.yaml', 'crd.yaml');
    expect(webhook.rules).toEqual([
      rule(['CREATE', 'UPDATE'], ['cert-manager.io'], ['v1'], ['certificates/status']),
      rule(['CREATE', 'UPDATE'], ['cert-manager.io'], ['*'], ['certificates']),
    ]);
  });

  it('refuses a bare kind nobody declares, and guesses (with a warning) when the group is written', async () => {
    const bare = await run({ 'k.yaml': kyverno('certs', '      any:\n      - resources: {kinds: [Certificate]}\n') }, '--url', URL_, '--policies', 'k.yaml');
    expect(bare.code).toBe(1);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('ClusterPolicy/certs rule label: kind */*/Certificate is not a built-in kind and no CustomResourceDefinition in the policy set declares it');
    const { webhook, stderr } = await generate({ 'k.yaml': kyverno('certs', '      any:\n      - resources: {kinds: [cert-manager.io/v1/Certificate]}\n') }, '--policies', 'k.yaml');
    expect(webhook.rules).toEqual([rule(['CREATE', 'UPDATE'], ['cert-manager.io'], ['v1'], ['certificates'])]);
    expect(stderr).toMatch(/warning: .*its resource is taken to be "certificates"/);
    // Gateway API's Gateway is served as gateways, the English plural its generator writes; Kubernetes'
    // guess (UnsafeGuessKindToResource) says gatewaies: both are sent, so neither misses.
    const gw = await generate({ 'k.yaml': kyverno('gw', '      any:\n      - resources: {kinds: [gateway.networking.k8s.io/v1/Gateway, example.com/v1/Box]}\n') }, '--policies', 'k.yaml');
    expect(gw.webhook.rules).toEqual([
      rule(['CREATE', 'UPDATE'], ['example.com'], ['v1'], ['boxes', 'boxs']),
      rule(['CREATE', 'UPDATE'], ['gateway.networking.k8s.io'], ['v1'], ['gatewaies', 'gateways']),
    ]);
    expect(gw.stderr).toMatch(/its resource is taken to be "gateways" or "gatewaies"/);
  });

  it('leaves out a mutate policy that turns admission off (Kyverno refuses it)', async () => {
    const files = {
      'a.yaml': kyverno('background-only', '      any:\n      - resources: {kinds: [Secret]}\n', '  admission: false\n'),
      'b.yaml': kyverno('pods', '      any:\n      - resources: {kinds: [Pod], operations: [CREATE]}\n'),
    };
    const { webhook, stderr } = await generate(files, '--policies', 'a.yaml', 'b.yaml');
    expect(webhook.rules).toEqual([rule(['CREATE'], [''], ['*'], ['pods', 'pods/ephemeralcontainers'])]);
    expect(stderr).toContain('ClusterPolicy/background-only: spec.admission: disabling admission processing is only allowed with validation policies');
  });
});

describe('amender webhook-config: options', () => {
  const files = repositoryPolicies();
  const pem = TEST_CA_PEM;

  it('sets name, failure policy, timeout, reinvocation, CA bundle and excluded namespaces', async () => {
    const { webhook, manifest } = await generate(
      { ...files, 'ca.crt': pem },
      '--policies', 'policies', '--name', 'amender-prod-eu', '--failure-policy', 'Ignore', '--timeout-seconds', '5',
      '--reinvocation-policy', 'Never', '--ca-bundle', 'ca.crt', '--exclude-namespace', 'kube-system', 'amender-system', 'kube-node-lease',
    );
    expect((manifest.metadata as { name: string }).name).toBe('amender-prod-eu');
    expect(webhook).toMatchObject({ name: 'amender-prod-eu.webhook.amender.dev', failurePolicy: 'Ignore', timeoutSeconds: 5, reinvocationPolicy: 'Never' });
    expect(Buffer.from(webhook.clientConfig.caBundle!, 'base64').toString('utf8')).toBe(pem);
    expect(webhook.namespaceSelector!.matchExpressions[0].values).toEqual(['amender-system', 'kube-node-lease', 'kube-system']);
  });

  it('prints JSON with --json', async () => {
    const { code, stdout } = await run(files, '--url', URL_, '--policies', 'policies', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).kind).toBe('MutatingWebhookConfiguration');
  });

  it('refuses what the API server would refuse, with a message', async () => {
    const refused = async (args: string[], message: string | RegExp, exit = 1) => {
      const { code, stderr, stdout } = await run({ ...files, 'not-a-cert.txt': 'hello' }, '--policies', 'policies', ...args);
      expect(code).toBe(exit);
      expect(stdout).toBe('');
      expect(stderr).toMatch(message);
    };
    // A wrong value on the command line is a wrong command line (exit 2), as README "CLI" says.
    await refused(['--url', 'http://amender.example.com/mutate'], 'the API server calls webhooks over https only', 2);
    await refused(['--url', 'https://amender.example.com/mutate?cluster=a'], 'a webhook URL cannot have a query', 2);
    // What Go's url.Parse refuses, or reads without a host, though the WHATWG URL parser mends it.
    for (const [url, why] of [
      ['https:///mutate', 'no host'],
      ['https:/amender.example.com/mutate', 'no host'],
      ['https:amender.example.com/mutate', 'no host'],
      ['https://amender.example.com/%zz', 'a % that starts no escape'],
      ['https://amender.example.com\\mutate', 'the host is not a host name'],
      ['https://amender%2eexample.com/mutate', 'the host is not a host name'],
      [' https://amender.example.com/mutate', 'starts or ends with a space'],
      ['https://amender.example.com/mu\ttate', 'a control character'],
      ['https://amender.example.com/mutate\n', 'a control character'],
    ]) {
      await refused(['--url', url], why, 2);
    }
    await refused(['--url', URL_, '--timeout-seconds', '31'], '--timeout-seconds 31: a whole number from 1 to 30', 2);
    await refused(['--url', URL_, '--failure-policy', 'Maybe'], '--failure-policy must be one of Fail, Ignore', 2);
    await refused(['--url', URL_, '--ca-bundle', 'missing.crt'], '--ca-bundle missing.crt: no such file or folder');
    await refused(['--url', URL_, '--ca-bundle', 'not-a-cert.txt'], 'not a PEM certificate bundle');
    await refused([], '--url URL is required', 2);
  });
});

describe('the built-in kind table', () => {
  it('gives the resources Kubernetes serves for well-known kinds', () => {
    const resource = (group: string, kind: string) => builtinKindTable().find((e) => e.group === group && e.kind === kind)?.resources;
    expect(resource('', 'Endpoints')).toEqual(['endpoints']);
    expect(resource('networking.k8s.io', 'Ingress')).toEqual(['ingresses']);
    expect(resource('networking.k8s.io', 'NetworkPolicy')).toEqual(['networkpolicies']);
    expect(resource('', 'ComponentStatus')).toEqual(['componentstatuses']);
    expect(resource('storage.k8s.io', 'CSIStorageCapacity')).toEqual(['csistoragecapacities']);
    expect(resource('discovery.k8s.io', 'EndpointSlice')).toEqual(['endpointslices']);
    expect(resource('policy', 'Eviction')).toEqual(['pods/eviction']);
    expect(resource('', 'Binding')).toEqual(['bindings', 'pods/binding']);
  });
});
