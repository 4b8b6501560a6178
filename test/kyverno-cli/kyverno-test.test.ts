/** `amender test` on Kyverno CLI test files, through the CLI entry with in-memory files. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO, type FakeIO } from '../cli/fake-io.js';

const ZZ_LABELS = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: zz-labels}
spec:
  rules:
    - name: add-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {labels: {team: "{{ team }}"}}
`;
/** Reads what zz-labels wrote: runs after it only in file order (by name it would run first). */
const AA_COPY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: aa-copy}
spec:
  rules:
    - name: copy-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchStrategicMerge:
          metadata: {annotations: {team-copy: "{{ request.object.metadata.labels.team }}"}}
`;
const RESOURCES = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: db, namespace: data}
    spec: {containers: [{name: c, image: postgres}]}
  - apiVersion: v1
    kind: Service
    metadata: {name: svc}
    spec: {ports: [{port: 80}]}
`;
/** web after zz-labels only; the empty maps and lists are tidied away before comparing. */
const PATCHED_WEB = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {team: blue}, annotations: {}}
spec: {containers: [{name: c, image: nginx, env: []}], volumes: null}
`;
const PATCHED_DB = `apiVersion: v1
kind: Pod
metadata: {name: db, namespace: data, labels: {team: red}, annotations: {team-copy: red}}
spec: {containers: [{name: c, image: postgres}]}
`;
const VALUES = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
globalValues: {team: blue}
policies:
  - name: zz-labels
    resources:
      - {name: db, values: {team: red}}
`;

function testFile(results: string, extra = ''): string {
  return `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: teams}
policies: [../zz-labels.yaml, ../aa-copy.yaml]
resources: [resources.yaml]
variables: values.yaml
${extra}results:
${results}`;
}

const RESULTS = `  - {policy: zz-labels, rule: add-team, kind: Pod, resources: [web], patchedResources: patched-web.yaml, result: pass}
  - {policy: aa-copy, rule: copy-team, kind: Pod, resources: [data/db], patchedResources: patched-db.yaml, result: pass}
  - {policy: zz-labels, rule: add-team, kind: Service, resources: [svc], result: pass}
`;

function files(test: string, more: Record<string, string> = {}): Record<string, string> {
  return {
    'lib/teams/zz-labels.yaml': ZZ_LABELS,
    'lib/teams/aa-copy.yaml': AA_COPY,
    'lib/teams/.kyverno-test/resources.yaml': RESOURCES,
    'lib/teams/.kyverno-test/patched-web.yaml': PATCHED_WEB,
    'lib/teams/.kyverno-test/patched-db.yaml': PATCHED_DB,
    'lib/teams/.kyverno-test/values.yaml': VALUES,
    'lib/teams/.kyverno-test/kyverno-test.yaml': test,
    ...more,
  };
}

function withWriteFile(io: FakeIO): FakeIO & { written: Record<string, string> } {
  const written: Record<string, string> = {};
  return Object.assign(io, { written, writeFile: async (path: string, text: string) => void (written[path] = text) });
}

function rows(stdout: string): string[] {
  return stdout.split('\n').filter((l) => /^│ \d+ /.test(l)).map((l) => l.split('│').map((c) => c.trim()).filter((c) => c !== '').join(' | '));
}

describe('amender test with kyverno-test.yaml', () => {
  it('fails a kyverno-test.yaml that holds no test (empty, only `---`, only comments), as an empty amender-test.yaml', async () => {
    for (const text of ['', '---\n', '# cut short\n']) {
      const io = fakeIO({ 't/kyverno-test.yaml': text });
      expect(await runCli(['test', 't'], io), JSON.stringify(text)).toBe(1);
      expect(io.stdout).toContain('Error: t/kyverno-test.yaml: the file holds no test');
    }
  });

  it('finds the test in .kyverno-test/ and passes it: file order, cumulative patches, values, default namespace, tidy', async () => {
    const io = fakeIO(files(testFile(RESULTS)));
    expect(await runCli(['test', 'lib'], io)).toBe(0);
    expect(rows(io.stdout)).toEqual([
      '1 | zz-labels | add-team | v1/Pod/default/web | Pass | Ok',
      '2 | aa-copy | copy-team | v1/Pod/data/db | Pass | Ok',
      '3 | zz-labels | add-team | v1/Service/default/svc | Pass | Excluded',
    ]);
    expect(io.stdout).toContain('Loading test teams ( lib/teams/.kyverno-test/kyverno-test.yaml ) ...');
    expect(io.stdout).toContain('Test Summary: 3 tests passed and 0 tests failed');
    // The other file order: aa-copy runs first and finds no label yet.
    const reversed = fakeIO(files(testFile(RESULTS).replace('[../zz-labels.yaml, ../aa-copy.yaml]', '[../aa-copy.yaml, ../zz-labels.yaml]')));
    expect(await runCli(['test', 'lib'], reversed)).toBe(1);
    expect(rows(reversed.stdout)[1]).toMatch(/^2 \| aa-copy \| copy-team \| v1\/Pod\/data\/db \| Fail \| (Resource diff|Want pass, got error)$/);
  });

  it('fails with a diff when the patched resource differs, and with Want/got when the rule result differs', async () => {
    const results = `  - {policy: zz-labels, rule: add-team, resources: [web], patchedResources: patched-web.yaml, result: pass}
  - {policy: aa-copy, rule: copy-team, resources: [web], result: skip}
`;
    const io = fakeIO(files(testFile(results), { 'lib/teams/.kyverno-test/patched-web.yaml': PATCHED_WEB.replace('team: blue', 'team: green') }));
    expect(await runCli(['test', 'lib'], io)).toBe(1);
    expect(rows(io.stdout)).toEqual([
      '1 | zz-labels | add-team | v1/Pod/default/web | Fail | Resource diff',
      '2 | aa-copy | copy-team | v1/Pod/default/web | Fail | Want skip, got pass',
    ]);
    expect(io.stdout).toContain('/metadata/labels/team: expected "green", got "blue"');
    expect(io.stdout).toContain('Test Summary: 0 tests passed and 2 tests failed');
  });

  it('skips a resource the expected file does not have, unless failOnMissingResources', async () => {
    const results = `  - {policy: zz-labels, rule: add-team, resources: [web, data/db], patchedResources: patched-web.yaml, result: pass}\n`;
    let io = fakeIO(files(testFile(results)));
    expect(await runCli(['test', 'lib'], io)).toBe(0);
    expect(rows(io.stdout)).toEqual(['1 | zz-labels | add-team | v1/Pod/default/web | Pass | Ok']);
    io = fakeIO(files(testFile(results.replace('result: pass', 'result: pass, failOnMissingResources: true'))));
    expect(await runCli(['test', 'lib'], io)).toBe(1);
    expect(rows(io.stdout)[1]).toBe('2 | zz-labels | add-team | v1/Pod/data/db | Fail | Resource error');
  });

  it('reads the older kind-less schema (resource, status, patchedResource) and says so', async () => {
    const legacy = `name: teams-legacy
policies: [../zz-labels.yaml, ../aa-copy.yaml]
resources: [resources.yaml]
variables: values.yaml
results:
  - {policy: zz-labels, rule: add-team, kind: Pod, resource: web, patchedResource: patched-web.yaml, status: pass}
`;
    const io = fakeIO(files(legacy));
    expect(await runCli(['test', 'lib/teams/.kyverno-test/kyverno-test.yaml'], io)).toBe(0);
    expect(io.stdout).toContain('older kind-less test schema');
    expect(rows(io.stdout)).toEqual(['1 | zz-labels | add-team | v1/Pod/default/web | Pass | Ok']);
  });

  it('refuses unknown keys and what Amender cannot run, as a failed test', async () => {
    let io = fakeIO(files(testFile(RESULTS, 'bogus: 1\n')));
    expect(await runCli(['test', 'lib'], io)).toBe(1);
    expect(io.stdout).toContain('unknown key "bogus"');
    io = fakeIO(files(testFile(RESULTS, 'exceptions: [ex.yaml]\n')));
    expect(await runCli(['test', 'lib'], io)).toBe(1);
    expect(io.stdout).toContain('test.exceptions: not supported by Amender');
    expect(io.stdout).toContain('Test Summary: 0 tests passed and 1 tests failed');
  });

  it('takes namespace labels, user info and rule values standing in for a configMap entry', async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: env-label}
spec:
  background: false
  rules:
    - name: from-config
      match: {any: [{resources: {kinds: [Pod], namespaceSelector: {matchLabels: {env: prod}}}}]}
      context:
        - name: cfg
          configMap: {name: settings, namespace: kube-system}
      mutate:
        patchStrategicMerge:
          metadata: {labels: {env: "{{ cfg.data.env }}", by: "{{ request.userInfo.username }}"}}
`;
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: env}
policies: [../env.yaml]
resources: [../resources.yaml]
userinfo: user.yaml
values:
  namespaceSelector: [{name: data, labels: {env: prod}}]
  policies:
    - name: env-label
      rules:
        - {name: from-config, values: {cfg.data.env: production}}
results:
  - {policy: env-label, rule: from-config, resources: [data/db], patchedResources: patched.yaml, result: pass}
  - {policy: env-label, rule: from-config, resources: [web], result: pass}
`;
    const io = fakeIO({
      'env/env.yaml': policy,
      'env/resources.yaml': RESOURCES,
      'env/t/kyverno-test.yaml': test,
      'env/t/user.yaml': 'apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nuserInfo: {username: alice}\n',
      'env/t/patched.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: db, namespace: data, labels: {env: production, by: alice}}\nspec: {containers: [{name: c, image: postgres}]}\n',
    });
    expect(await runCli(['test', 'env'], io)).toBe(0);
    expect(rows(io.stdout)).toEqual([
      '1 | env-label | from-config | v1/Pod/data/db | Pass | Ok',
      '2 | env-label | from-config | v1/Pod/default/web | Pass | Excluded',
    ]);
  });

  it('sends a subresource kind the values map as its parent\'s request with that subresource', async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: cap-replicas}
spec:
  rules:
    - name: cap
      match: {any: [{resources: {kinds: [Deployment/scale]}}]}
      mutate: {patchStrategicMerge: {spec: {replicas: 2}}}
`;
    const scale = (n: number) => `apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web, namespace: shop}\nspec: {replicas: ${n}}\n`;
    const test = (values: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: scale}
policies: [../policy.yaml]
resources: [scale.yaml]
${values}results:
  - {policy: cap-replicas, rule: cap, resources: [shop/web], patchedResources: patched.yaml, result: pass}
`;
    const mapping = `values:
  subresources:
    - subresource: {name: deployments/scale, kind: Scale, group: autoscaling, version: v1}
      parentResource: {name: deployments, kind: Deployment, group: apps, version: v1}
`;
    const fs = (t: string) => ({ 's/policy.yaml': policy, 's/t/scale.yaml': scale(10), 's/t/patched.yaml': scale(2), 's/t/kyverno-test.yaml': t });
    let io = fakeIO(fs(test(mapping)));
    expect(await runCli(['test', 's'], io)).toBe(0);
    expect(rows(io.stdout)).toEqual(['1 | cap-replicas | cap | autoscaling/v1/Scale/shop/web | Pass | Ok']);
    // Without the mapping a Scale is not a Deployment's scale subresource: the rule does not match.
    io = fakeIO(fs(test('')));
    expect(await runCli(['test', 's'], io)).toBe(0);
    expect(rows(io.stdout)).toEqual(['1 | cap-replicas | cap | autoscaling/v1/Scale/shop/web | Pass | Excluded']);
  });

  it('runs a result that names an operation in a run of its own, UPDATE with the object as oldObject', async () => {
    const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: on-update}
spec:
  rules:
    - name: previous
      match: {any: [{resources: {kinds: [Pod], operations: [UPDATE]}}]}
      mutate: {patchStrategicMerge: {metadata: {annotations: {previous: "{{ request.oldObject.metadata.name }}"}}}}
`;
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: ops}
policies: [policy.yaml]
resources: [pod.yaml]
results:
  - {policy: on-update, rule: previous, resources: [web], operation: UPDATE, patchedResources: patched.yaml, result: pass}
  - {policy: on-update, rule: previous, resources: [web], result: pass}
`;
    const io = fakeIO({
      'o/policy.yaml': policy,
      'o/pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n',
      'o/patched.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, annotations: {previous: web}}\n',
      'o/kyverno-test.yaml': test,
    });
    expect(await runCli(['test', 'o'], io)).toBe(0);
    expect(rows(io.stdout)).toEqual(['1 | on-update | previous | v1/Pod/default/web | Pass | Ok', '2 | on-update | previous | v1/Pod/default/web | Pass | Excluded']);
  });

  it('selects results with --test-case-selector wildcards', async () => {
    const io = fakeIO(files(testFile(RESULTS)));
    expect(await runCli(['test', 'lib', '--test-case-selector', 'policy=zz-*,resource=svc'], io)).toBe(0);
    expect(rows(io.stdout)).toEqual(['1 | zz-labels | add-team | v1/Service/default/svc | Pass | Excluded']);
    const bad = fakeIO(files(testFile(RESULTS)));
    expect(await runCli(['test', 'lib', '-t', 'color=red'], bad)).toBe(2);
    expect(bad.stderr).toContain('unknown key "color"');
  });

  it('prints only failures with --fail-only, and messages with --detailed-results', async () => {
    const results = `${RESULTS}  - {policy: aa-copy, rule: copy-team, resources: [web], result: skip}\n`;
    let io = fakeIO(files(testFile(results)));
    expect(await runCli(['test', 'lib', '--fail-only'], io)).toBe(1);
    expect(io.stdout).toContain('Test Summary: 1 out of 4 tests failed');
    expect(rows(io.stdout)).toEqual(['1 | aa-copy | copy-team | v1/Pod/default/web | Fail | Want skip, got pass']);
    io = fakeIO(files(testFile(results)));
    expect(await runCli(['test', 'lib', '--detailed-results'], io)).toBe(1);
    expect(io.stdout).toMatch(/│ ID │ POLICY +│ RULE +│ RESOURCE +│ RESULT │ REASON +│ MESSAGE +│/);
    expect(io.stdout).toContain('mutated Pod/web in namespace default');
  });

  it('writes JUnit XML on stdout (report on stderr) or to --output-file', async () => {
    const results = `${RESULTS}  - {policy: aa-copy, rule: copy-team, resources: [web], result: skip}\n`;
    const io = fakeIO(files(testFile(results)));
    expect(await runCli(['test', 'lib', '-o', 'junit'], io)).toBe(1);
    expect(io.stdout.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="4" failures="1">\n')).toBe(true);
    expect(io.stdout).toContain('<testsuite name="aa-copy" file="lib/teams/.kyverno-test/kyverno-test.yaml" tests="2" failures="1">');
    expect(io.stdout).toContain('<testcase classname="copy-team" name="v1/Pod/default/web">\n   <failure message="Want skip, got pass">');
    expect(io.stdout.trimEnd().endsWith('</testsuites>')).toBe(true);
    expect(io.stderr).toContain('Test Summary: 3 tests passed and 1 tests failed');
    const file = withWriteFile(fakeIO(files(testFile(RESULTS))));
    expect(await runCli(['test', 'lib', '--output-format', 'junit', '--output-file', 'report.xml'], file)).toBe(0);
    expect(file.written['report.xml']).toContain('<testsuites tests="3" failures="0">');
    expect(file.stdout).toContain('Test Summary: 3 tests passed and 0 tests failed');
    const bad = fakeIO(files(testFile(RESULTS)));
    expect(await runCli(['test', 'lib', '-o', 'html'], bad)).toBe(2);
  });

  it('fails results Amender cannot check: a validate rule, a ValidatingAdmissionPolicy', async () => {
    const validate = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: checks}
spec:
  rules:
    - name: require-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate: {message: team label required, pattern: {metadata: {labels: {team: "?*"}}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: vap}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  validations: [{expression: "true"}]
`;
    const test = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: checks}
policies: [checks.yaml]
resources: [pod.yaml]
results:
  - {policy: checks, rule: require-team, resources: [web], result: fail}
  - {policy: vap, isValidatingAdmissionPolicy: true, resources: [web], result: pass}
`;
    const io = fakeIO({ 'v/checks.yaml': validate, 'v/pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n', 'v/kyverno-test.yaml': test });
    expect(await runCli(['test', 'v'], io)).toBe(1);
    expect(rows(io.stdout)).toEqual(['1 | checks | require-team | v1/Pod/default/web | Fail | Not run', '2 | vap | v1/Pod/default/web | Fail | Not run']);
    expect(io.stdout).toContain('rule require-team is not a mutate rule: Amender runs mutate rules only');
    expect(io.stdout).toContain('ValidatingAdmissionPolicy vap: amender test runs Kyverno ClusterPolicy/Policy mutate rules and MutatingAdmissionPolicies only');
  });

  it('runs golden and Kyverno tests side by side', async () => {
    const io = fakeIO({
      ...files(testFile(RESULTS)),
      'golden/amender-test.yaml': `policies: [../lib/teams/zz-labels.yaml]\ncases:\n  - name: untouched service\n    object: {apiVersion: v1, kind: Service, metadata: {name: s, namespace: x}}\n    expect: {unchanged: true}\n`,
    });
    expect(await runCli(['test', 'lib', 'golden'], io)).toBe(0);
    expect(io.stdout).toContain('ok   golden/amender-test.yaml: untouched service');
    expect(io.stdout).toContain('Test Summary: 3 tests passed and 0 tests failed');
  });
});
