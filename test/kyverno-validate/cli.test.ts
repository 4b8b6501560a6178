/**
 * `amender validate` tells the truth about Kyverno policies (issue 10), through the CLI entry with
 * in-memory files: every construct that would fail or do nothing at admission is a problem with its
 * document, field path, message and effect, and counted (exit 1); the CLI's other commands decide the
 * same way (a refused policy does not run in `apply`/`review`; values stand in for cluster-only context
 * entries in `apply --set` and `amender test`, as in Kyverno's CLI); a source without any policy is a
 * warning; `spec.emitWarning` policies print Kyverno's admission warnings.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';
import { CONSTRUCTS, constructPolicy, FOREIGN, yamlDocuments } from './policies.js';

const POD = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: a, image: nginx:1.27}]}
`;

async function validate(files: Record<string, string>, paths = Object.keys(files)) {
  const io = fakeIO(files);
  const code = await runCli(['validate', ...paths], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

function problemLine(stderr: string, path: string): string | undefined {
  return stderr.split('\n').find((l) => l.includes(`: ${path}: `));
}

describe('amender validate: each construct is a problem with its path, message and effect', () => {
  for (const c of CONSTRUCTS) {
    it(c.name, async () => {
      const r = await validate({ 'p.yaml': yamlDocuments([constructPolicy('p', c)]) });
      expect(r.code).toBe(1);
      const line = problemLine(r.stderr, c.path);
      expect(line, r.stderr).toBeDefined();
      expect(line).toMatch(/^p\.yaml#0 ClusterPolicy\/p: /);
      expect(line).toMatch(c.message);
      expect(line).toMatch(c.effect === 'ignored' ? /\(ignored\)$/ : /\(kept, in force\)$/);
      expect(r.stderr).toMatch(/\n1 problem \(/);
      if (c.effect === 'ignored') expect(r.stderr).toContain('1 file refused');
      expect(r.stderr).toContain(`kyvernoPolicies: ${c.effect === 'ignored' ? 0 : 1}`);
    });
  }

  it('every unsupported context entry and variable of one rule is listed, not just the first', async () => {
    const c = {
      rules: [
        {
          name: 'r',
          context: [
            { name: 'ns', apiCall: { urlPath: '/api/v1/namespaces/shop' } },
            { name: 'img', imageRegistry: { reference: 'nginx' } },
          ],
          mutate: { patchStrategicMerge: { metadata: { labels: { a: '{{ bad_fn(ns) }}', b: '{{ img.[ }}' } } } },
        },
      ],
    };
    const r = await validate({ 'p.yaml': yamlDocuments([constructPolicy('p', c)]) });
    expect(r.code).toBe(1);
    for (const path of ['spec.rules[0].context[0].apiCall', 'spec.rules[0].context[1].imageRegistry', 'spec.rules[0].mutate.patchStrategicMerge.metadata.labels.a', 'spec.rules[0].mutate.patchStrategicMerge.metadata.labels.b']) {
      expect(problemLine(r.stderr, path), path).toBeDefined();
    }
    expect(r.stderr).toMatch(/\n4 problems \(/);
  });

  it('a nested variable checks the inner one; escaped and @ variables are left alone', async () => {
    const c = {
      rules: [
        {
          name: 'r',
          mutate: {
            foreach: [
              {
                list: 'request.object.spec.containers',
                patchStrategicMerge: { metadata: { annotations: { '{{ element.name }}': '{{ images.containers."{{ element.name }}".tag }}', x: '\\{{ not a variable [ }}', y: '{{@}}' } } },
              },
            ],
          },
        },
      ],
    };
    const ok = await validate({ 'p.yaml': yamlDocuments([constructPolicy('p', c)]) });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const inner = structuredClone(c);
    (inner.rules[0].mutate.foreach[0].patchStrategicMerge.metadata.annotations as Record<string, string>).z = '{{ images.containers."{{ element.name | }}".tag }}';
    const bad = await validate({ 'p.yaml': yamlDocuments([constructPolicy('p', inner)]) });
    expect(bad.code).toBe(1);
    expect(problemLine(bad.stderr, 'spec.rules[0].mutate.foreach[0].patchStrategicMerge.metadata.annotations.z')).toMatch(/variable \{\{ element\.name \| \}\}: invalid JMESPath/);
  });

  it('a configMap the sources hold, and a kind a CRD of the set declares, are fine', async () => {
    const c = {
      rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod', 'example.com/v1/Widget'] } }] }, context: [{ name: 'cfg', configMap: { name: 'settings', namespace: 'kyverno' } }], mutate: { patchStrategicMerge: { metadata: { labels: { team: '{{ cfg.data.team }}' } } } } }],
    };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    };
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'kyverno' }, data: { team: 'blue' } };
    const r = await validate({ 'p.yaml': yamlDocuments([constructPolicy('p', c), cm, crd]) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok \(.*kyvernoPolicies: 1/);
  });

  it('Kyverno documents Amender does not run are problems, each saying why', async () => {
    const r = await validate({ 'p.yaml': yamlDocuments(FOREIGN.map((f) => f.doc)) });
    expect(r.code).toBe(1);
    FOREIGN.forEach((f, i) => {
      const line = r.stderr.split('\n').find((l) => l.startsWith(`p.yaml#${i} `));
      expect(line).toMatch(f.message);
      expect(line).toMatch(/: kind: .*\(ignored\)$/);
    });
    expect(r.stderr).toContain(`${FOREIGN.length} problems (`);
    expect(r.stderr).toContain('params: 0');
  });

  it('a source that holds no policy is a warning; the set still validates', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: kyverno}\ndata: {team: blue}\n';
    const policy = yamlDocuments([constructPolicy('p', { rules: [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } }] })]);
    const r = await validate({ 'policies/p.yaml': policy, 'params/cm.yaml': cm, 'comments/empty.yaml': '# nothing here yet\n' }, ['policies', 'params', 'comments']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok \(/);
    const warnings = r.stderr.trimEnd().split('\n');
    expect(warnings).toEqual([
      expect.stringMatching(/^warning: policy source params holds no policy .*its 1 document is only read as params/),
      expect.stringMatching(/^warning: policy source comments holds 1 file but no documents/),
    ]);
  });
});

describe('the CLI decides as validate does', () => {
  const apiCall = constructPolicy('needs-api', {
    spec: { failurePolicy: 'Fail' },
    rules: [{ name: 'env', context: [{ name: 'ns', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}', jmesPath: 'metadata.labels' } }], mutate: { patchStrategicMerge: { metadata: { labels: { env: '{{ ns.env }}' } } } } }],
  });
  const labels = constructPolicy('labels', { rules: [{ name: 'team', mutate: { patchStrategicMerge: { metadata: { labels: { team: 'blue' } } } } }] });

  it('apply: a refused policy is reported and does not run (no denial under failurePolicy Fail)', async () => {
    const io = fakeIO({ 'p.yaml': yamlDocuments([apiCall, labels]), 'pod.yaml': POD });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], io)).toBe(0);
    expect(io.stderr).toMatch(/spec\.rules\[0\]\.context\[0\]\.apiCall: context entry "ns": apiCall reads the cluster's API.*\(ignored\)/);
    expect(io.stderr).not.toContain('policy needs-api ->');
    expect(io.stdout).toContain('team: blue');
    expect(io.stdout).not.toContain('env:');
  });

  it('apply --values-file: rule values stand in for the apiCall entry, as with kyverno apply', async () => {
    const values = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
policies:
  - name: needs-api
    rules:
      - name: env
        values: {ns.env: prod}
`;
    const io = fakeIO({ 'p.yaml': yamlDocuments([apiCall]), 'pod.yaml': POD, 'values.yaml': values });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml', '--values-file', 'values.yaml'], io)).toBe(0);
    expect(io.stderr).toMatch(/apiCall reads the cluster's API.*\(kept, in force\)/);
    expect(io.stdout).toContain('env: prod');
  });

  it('amender test: a kyverno-test.yaml whose rule values stand in for apiCall and imageRegistry entries passes', async () => {
    const policy = constructPolicy('tag-env', {
      rules: [
        {
          name: 'env',
          context: [
            { name: 'ns', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}', jmesPath: 'metadata.labels' } },
            { name: 'img', imageRegistry: { reference: '{{ request.object.spec.containers[0].image }}' } },
          ],
          mutate: { patchStrategicMerge: { metadata: { labels: { env: '{{ ns.env }}', digest: '{{ img.digest }}' } } } },
        },
      ],
    });
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: tag-env}
policies: [policy.yaml]
resources: [pod.yaml]
values:
  policies:
    - name: tag-env
      rules:
        - name: env
          values: {ns.env: prod, img.digest: sha256-abc}
results:
  - policy: tag-env
    rule: env
    resources: [web]
    kind: Pod
    patchedResources: patched.yaml
    result: pass
`;
    const patched = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop, labels: {env: prod, digest: sha256-abc}}
spec: {containers: [{name: a, image: nginx:1.27}]}
`;
    const io = fakeIO({ 't/kyverno-test.yaml': test, 't/policy.yaml': yamlDocuments([policy]), 't/pod.yaml': POD, 't/patched.yaml': patched });
    const code = await runCli(['test', 't'], io);
    expect(io.stdout).toMatch(/Pass/);
    expect(io.stdout).not.toMatch(/Fail/);
    expect(code).toBe(0);
  });

  it('review: a rule that needs roles is not run; the rest of the policy is', async () => {
    const policy = constructPolicy('admins', {
      spec: { background: false },
      rules: [
        { name: 'admins-only', match: { any: [{ resources: { kinds: ['Pod'] }, clusterRoles: ['cluster-admin'] }] }, mutate: { patchStrategicMerge: { metadata: { labels: { admin: 'yes' } } } } },
        { name: 'everyone', mutate: { patchStrategicMerge: { metadata: { labels: { seen: 'yes' } } } } },
      ],
    });
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u-1',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: 'shop',
        operation: 'CREATE',
        userInfo: { username: 'root', groups: ['system:masters'] },
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'a', image: 'nginx' }] } },
      },
    };
    const io = fakeIO({ 'p.yaml': yamlDocuments([policy]) }, JSON.stringify(review));
    expect(await runCli(['review', '--policies', 'p.yaml'], io)).toBe(0);
    expect(io.stderr).toMatch(/spec\.rules\[0\]\.match: roles\/clusterRoles.*\(kept, in force\)/);
    const reply = JSON.parse(io.stdout);
    const patch = JSON.parse(Buffer.from(reply.response.patch, 'base64').toString('utf8'));
    expect(patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { seen: 'yes' } }]);
    const audit = JSON.parse(reply.response.auditAnnotations['kyverno-mutate']);
    expect(audit.map((a: { rule: string }) => a.rule)).toEqual(['everyone']);
  });
});

describe('spec.emitWarning in the CLI', () => {
  const policy = constructPolicy('add-team', {
    spec: { emitWarning: true, failurePolicy: 'Ignore' },
    rules: [
      { name: 'team', mutate: { patchStrategicMerge: { metadata: { labels: { team: 'blue' } } } } },
      { name: 'again', mutate: { patchStrategicMerge: { metadata: { labels: { team: 'blue' } } } } },
      { name: 'broken', mutate: { patchStrategicMerge: { metadata: { labels: { owner: '{{ request.object.metadata.annotations.owner }}' } } } } },
    ],
  });
  const quiet = constructPolicy('quiet', { rules: [{ name: 'q', mutate: { patchStrategicMerge: { metadata: { labels: { q: 'yes' } } } } }] });

  it('apply prints a warning per rule that did not skip, as Kyverno formats them', async () => {
    const io = fakeIO({ 'p.yaml': yamlDocuments([policy, quiet]), 'pod.yaml': POD });
    // The broken rule's error exits 1, as kyverno apply (test/cli/apply-error-exit.test.ts).
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], io)).toBe(1);
    const warnings = io.stderr.split('\n').filter((l) => l.startsWith('Warning: '));
    expect(warnings).toEqual([
      'Warning: policy add-team.team: mutated Pod/web in namespace shop',
      expect.stringMatching(/^Warning: policy add-team\.broken: variable substitution failed: failed to resolve request\.object\.metadata\.annotations\.owner .*Unknown key "annotations" in path$/),
    ]);
  });

  it('review puts them in the reply and on standard error', async () => {
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u-2',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: 'shop',
        operation: 'CREATE',
        userInfo: { username: 'ann' },
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop', annotations: { owner: 'ann' } }, spec: { containers: [{ name: 'a', image: 'nginx' }] } },
      },
    };
    const io = fakeIO({ 'p.yaml': yamlDocuments([policy, quiet]) }, JSON.stringify(review));
    expect(await runCli(['review', '--policies', 'p.yaml'], io)).toBe(0);
    const reply = JSON.parse(io.stdout);
    expect(reply.response.warnings).toEqual(['policy add-team.team: mutated Pod/web in namespace shop', 'policy add-team.broken: mutated Pod/web in namespace shop']);
    expect(io.stderr).toBe('Warning: policy add-team.team: mutated Pod/web in namespace shop\nWarning: policy add-team.broken: mutated Pod/web in namespace shop\n');
  });
});
