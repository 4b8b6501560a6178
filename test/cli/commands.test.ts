import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';

/** A policy that denies every Pod CREATE without needing CEL: its binding's param does not exist. */
const DENY_POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: needs-param}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  mutations:
    - patchType: JSONPatch
      jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"a": "b"}}]'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: needs-param}
spec:
  policyName: needs-param
  paramRef: {name: missing, namespace: default, parameterNotFoundAction: Deny}
`;
const DENIAL =
  "policy 'needs-param' with binding 'needs-param' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction";

const POD_YAML = `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
spec:
  containers:
    - name: web
      image: nginx:1.27
`;
const CONFIGMAP_YAML = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\ndata: {a: "1"}\n';

function review(object: unknown, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u-42',
      kind: { group: '', version: 'v1', kind: (object as { kind: string }).kind },
      resource: { group: '', version: 'v1', resource: `${(object as { kind: string }).kind.toLowerCase()}s` },
      namespace: 'shop',
      operation: 'CREATE',
      userInfo: { username: 'u' },
      object,
      ...extra,
    },
  });
}

const files = {
  'policies/deny.yaml': DENY_POLICY,
  'policies/tests/ignored.yaml': 'this: [is not loaded',
  'pod.yaml': POD_YAML,
  'cm.yaml': CONFIGMAP_YAML,
};

describe('amender (dispatcher)', () => {
  it('prints help and lists the commands', async () => {
    const io = fakeIO({});
    expect(await runCli(['help'], io)).toBe(0);
    expect(io.stdout).toMatch(/^usage: amender <command>/);
    for (const c of ['review', 'apply', 'test', 'validate', 'eval']) expect(io.stdout).toContain(`  ${c}`);
  });

  it('exits 2 with the usage for no command, an unknown one, or bad options', async () => {
    let io = fakeIO({});
    expect(await runCli([], io)).toBe(2);
    expect(io.stderr).toContain('usage: amender <command>');
    io = fakeIO({});
    expect(await runCli(['mutate'], io)).toBe(2);
    expect(io.stderr).toMatch(/^amender: unknown command "mutate"/);
    io = fakeIO({});
    expect(await runCli(['review', '--polices', 'x'], io)).toBe(2);
    expect(io.stderr).toMatch(/^amender review: unknown option --polices\n\nusage: amender review/);
    io = fakeIO({});
    expect(await runCli(['review'], io)).toBe(2);
    expect(io.stderr).toContain('--policies PATH... is required');
  });

  it('dispatches eval to the CEL command', async () => {
    const io = fakeIO({});
    expect(await runCli(['eval', '--expression', '1 + 2'], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual({ value: 3, type: 'int' });
  });

  it('shows a command\'s usage with --help', async () => {
    const io = fakeIO({});
    expect(await runCli(['apply', '--help'], io)).toBe(0);
    expect(io.stdout).toMatch(/^usage: amender apply --policies PATH\.\.\. --resource FILE/);
  });
});

describe('amender review', () => {
  it('prints the reply a denial gets, and exits 0', async () => {
    const io = fakeIO(files, review(parseYaml(POD_YAML)));
    expect(await runCli(['review', '--policies', 'policies'], io)).toBe(0);
    const reply = JSON.parse(io.stdout);
    expect(reply).toMatchObject({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'u-42', allowed: false, status: { code: 403, reason: 'Forbidden', message: DENIAL } },
    });
    expect(reply.response.status.details.causes).toEqual([{ message: DENIAL }]);
    expect(io.stderr).toBe('');
  });

  it('reads a YAML review from a file; nothing matches → allowed without a patch', async () => {
    const yamlReview = JSON.stringify(JSON.parse(review(parseYaml(CONFIGMAP_YAML))), null, 1).replace(/^\{|\}$/g, '');
    const io = fakeIO({ ...files, 'review.yaml': `{${yamlReview}}` });
    expect(await runCli(['review', '--policies', 'policies/deny.yaml', '--input', 'review.yaml'], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u-42', allowed: true } });
  });

  it('exits 1 with the field for an unusable review, and for unreadable policies', async () => {
    let io = fakeIO(files, review(parseYaml(POD_YAML), { operation: 'PATCH' }));
    expect(await runCli(['review', '--policies', 'policies'], io)).toBe(1);
    expect(io.stderr).toBe('amender review: invalid AdmissionReview: request.operation: expected one of CREATE, UPDATE, DELETE, CONNECT, got the string "PATCH"\n');
    expect(io.stdout).toBe('');
    io = fakeIO(files, '{"apiVersion": ');
    expect(await runCli(['review', '--policies', 'policies'], io)).toBe(1);
    expect(io.stderr).toMatch(/^amender review: standard input: malformed JSON: /);
    io = fakeIO(files, review(parseYaml(POD_YAML)));
    expect(await runCli(['review', '--policies', 'nowhere'], io)).toBe(1);
    expect(io.stderr).toBe('amender review: cannot read policies from nowhere: no such file or folder\n');
  });

  it('lists the policy set\'s problems on stderr unless --quiet', async () => {
    const broken = DENY_POLICY.replace('reinvocationPolicy: Never', 'reinvocationPolicy: Sometimes');
    let io = fakeIO({ 'p.yaml': broken }, review(parseYaml(POD_YAML)));
    expect(await runCli(['review', '--policies', 'p.yaml'], io)).toBe(0);
    expect(io.stderr).toMatch(/^warning: the policy set has problems:\np\.yaml#0 MutatingAdmissionPolicy\/needs-param: spec\.reinvocationPolicy: /);
    expect(JSON.parse(io.stdout).response.allowed).toBe(true);
    io = fakeIO({ 'p.yaml': broken }, review(parseYaml(POD_YAML)));
    expect(await runCli(['review', '--policies', 'p.yaml', '--quiet'], io)).toBe(0);
    expect(io.stderr).toBe('');
  });
});

describe('amender apply', () => {
  it('prints the resource as YAML when nothing applies', async () => {
    const io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'cm.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout)).toEqual(parseYaml(CONFIGMAP_YAML));
  });

  it('prints an empty patch with --patch', async () => {
    const io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'cm.yaml', '--patch'], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toEqual([]);
  });

  it('exits 1 on a denial with the status on stderr', async () => {
    const io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'pod.yaml'], io)).toBe(1);
    expect(io.stderr).toBe(`denied (403 Forbidden): ${DENIAL}\n`);
    expect(io.stdout).toBe('');
  });

  it('sends the object as its own oldObject for UPDATE without --old', async () => {
    const io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'pod.yaml', '--operation', 'UPDATE'], io)).toBe(0);
    expect(parseYaml(io.stdout)).toEqual(parseYaml(POD_YAML));
  });

  it('runs every document of a file and reports each denial', async () => {
    const io = fakeIO({ ...files, 'two.yaml': `${POD_YAML}---\n${CONFIGMAP_YAML}` });
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'two.yaml'], io)).toBe(1);
    expect(io.stderr).toBe(`denied (403 Forbidden): shop/Pod/web: ${DENIAL}\n`);
    expect(parseYaml(io.stdout)).toEqual(parseYaml(CONFIGMAP_YAML));
  });

  it('does not run CREATE policies on other operations', async () => {
    const io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'pod.yaml', '--operation', 'update', '--old', 'pod.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout)).toEqual(parseYaml(POD_YAML));
  });

  it('refuses a List whose items is not a list, naming the document, instead of taking it as one resource', async () => {
    const cases: [string, string, string][] = [
      ['items-map.yaml', `${CONFIGMAP_YAML}---\napiVersion: v1\nkind: List\nitems: {apiVersion: v1, kind: ConfigMap, metadata: {name: d}}\n`, 'items-map.yaml#1: a List whose items is a mapping, not a list'],
      ['items-text.yaml', 'apiVersion: v1\nkind: List\nitems: "x"\n', 'items-text.yaml: a List whose items is a string, not a list'],
      ['items-json.json', '{"apiVersion": "v1", "kind": "ConfigMapList", "items": 3}', 'items-json.json: a ConfigMapList whose items is a number, not a list'],
      ['no-items.yaml', 'apiVersion: v1\nkind: List\n', 'no-items.yaml: a List without items'],
    ];
    for (const [name, text, message] of cases) {
      const io = fakeIO({ ...files, [name]: text });
      expect(await runCli(['apply', '--policies', 'policies', '--resource', name], io), name).toBe(1);
      expect(io.stderr).toBe(`amender apply: ${message}: its objects go in items as a sequence (items: [...])\n`);
      expect(io.stdout).toBe('');
    }
  });

  it('reads a List kind whose items is null as no resource, as kubectl does, not as one resource of that kind', async () => {
    const io = fakeIO({ ...files, 'r.yaml': `apiVersion: v1\nkind: ConfigMapList\nitems: null\n---\n${CONFIGMAP_YAML}---\napiVersion: v1\nkind: List\nitems:\n` });
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'r.yaml'], io)).toBe(0);
    expect(io.stderr).toBe('');
    expect(parseYaml(io.stdout)).toEqual(parseYaml(CONFIGMAP_YAML));
    const only = fakeIO({ ...files, 'n.json': '{"apiVersion": "v1", "kind": "PodList", "items": null}' });
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'n.json'], only)).toBe(1);
    expect(only.stderr).toBe('amender apply: no resources in n.json\n');
    // --old takes one object: a List in JSON is no more one than in YAML.
    const old = fakeIO({ ...files, 'old.json': `{"apiVersion": "v1", "kind": "ConfigMapList", "items": [${JSON.stringify(parseYaml(CONFIGMAP_YAML))}]}`, 'cm.yaml': CONFIGMAP_YAML });
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'cm.yaml', '--operation', 'UPDATE', '--old', 'old.json'], old)).toBe(1);
    expect(old.stderr).toBe('amender apply: old.json: expected one object, found a List of 1\n');
  });

  it('names the file and document of a resource without apiVersion or kind, and reviews none', async () => {
    const io = fakeIO({ ...files, 'res/a.yaml': CONFIGMAP_YAML, 'res/b.yaml': `${CONFIGMAP_YAML}---\nmetadata: {name: x}\n` });
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'res'], io)).toBe(1);
    expect(io.stderr).toBe('amender apply: res/b.yaml#1: the resource needs apiVersion and kind (apiVersion and kind not set)\n');
    expect(io.stdout).toBe('');
    const list = fakeIO({ ...files, 'l.yaml': 'apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, metadata: {name: y}}]\n' });
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'l.yaml'], list)).toBe(1);
    expect(list.stderr).toBe('amender apply: l.yaml item 0: the resource needs apiVersion and kind (kind not set)\n');
    const old = fakeIO({ ...files, 'old.yaml': 'metadata: {name: c}\n', 'cm.yaml': CONFIGMAP_YAML });
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'cm.yaml', '--operation', 'DELETE', '--old', 'old.yaml'], old)).toBe(1);
    expect(old.stderr).toBe('amender apply: old.yaml: the resource needs apiVersion and kind (apiVersion and kind not set)\n');
  });

  it('checks its options', async () => {
    let io = fakeIO(files);
    io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'pod.yaml', '--operation', 'PATCH'], io)).toBe(2);
    io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'missing.yaml'], io)).toBe(1);
    expect(io.stderr).toBe('amender apply: cannot read missing.yaml: no such file or folder\n');
    io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'cm.yaml', 'cm.yaml', '--old', 'cm.yaml'], io)).toBe(2);
    expect(io.stderr).toContain('--old goes with a single resource');
    for (const twice of [['--resource', '-', '-'], ['--resource', '-', '--old', '-', '--operation', 'UPDATE'], ['--resource', '-', '--values-file', '-']]) {
      io = fakeIO(files, CONFIGMAP_YAML);
      expect(await runCli(['apply', '--policies', 'policies', ...twice], io), twice.join(' ')).toBe(2);
      expect(io.stderr).toContain('amender apply: standard input (-) is read once: give it to one of the policy paths, --resource, --old, --values-file and --userinfo\n');
    }
    io = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'policies', '--resource', 'cm.yaml', '--set', 'novalue'], io)).toBe(2);
    expect(io.stderr).toContain('expected key=value');
  });
});

describe('amender validate', () => {
  it('summarises a valid set and exits 0', async () => {
    const io = fakeIO(files);
    expect(await runCli(['validate', 'policies'], io)).toBe(0);
    expect(io.stdout).toMatch(/^ok \(mutatingAdmissionPolicies: 1, mutatingAdmissionPolicyBindings: 1, .*problems: 0\)\n$/);
  });

  it('reports every problem with document, field path and message, and exits 1', async () => {
    const io = fakeIO({
      'a.yaml': DENY_POLICY.replace('reinvocationPolicy: Never', 'reinvocationPolicy: Sometimes'),
      'b.yaml': 'kind: [broken',
    });
    expect(await runCli(['validate', 'a.yaml', 'b.yaml'], io)).toBe(1);
    const lines = io.stderr.trim().split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(/^a\.yaml#0 MutatingAdmissionPolicy\/needs-param: spec\.reinvocationPolicy: .*\((ignored|kept, in force)\)$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^b\.yaml#0: invalid YAML: .* \(ignored\)$/));
    expect(lines.at(-1)).toMatch(/^\d+ problems \(/);
  });

  it('reads a place named twice once: no document is a duplicate of itself', async () => {
    for (const paths of [['policies', 'policies'], ['policies', './policies/'], ['policies/deny.yaml', 'policies/deny.yaml', 'file://policies/deny.yaml']]) {
      const io = fakeIO(files);
      expect(await runCli(['validate', ...paths], io), paths.join(' ')).toBe(0);
      expect(io.stdout, paths.join(' ')).toMatch(/^ok \(mutatingAdmissionPolicies: 1, mutatingAdmissionPolicyBindings: 1, .*problems: 0\)\n$/);
    }
  });
});

describe('amender test', () => {
  const suite = (cases: string) => `policies: [../policies]\ncases:\n${cases}`;
  const withSuite = (cases: string) => ({ ...files, 'suite/amender-test.yaml': suite(cases), 'suite/pod.yaml': POD_YAML, 'suite/cm.yaml': CONFIGMAP_YAML });

  it('passes exact expectations and prints one line per case', async () => {
    const io = fakeIO(
      withSuite(`  - name: pods are denied
    resource: pod.yaml
    expect:
      denied: {code: 403, reason: Forbidden, message: "${DENIAL.replace(/`/g, '`')}"}
  - name: config maps pass unchanged
    resource: cm.yaml
    expect: {unchanged: true}
  - name: config maps come out equal
    object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: shop}, data: {a: "1"}}
    expect:
      object: cm.yaml
`),
    );
    expect(await runCli(['test', 'suite'], io)).toBe(0);
    expect(io.stdout).toBe(
      'ok   suite/amender-test.yaml: pods are denied\nok   suite/amender-test.yaml: config maps pass unchanged\nok   suite/amender-test.yaml: config maps come out equal\n\n3 passed, 0 failed\n',
    );
  });

  it('fails on any difference and shows it', async () => {
    const io = fakeIO(
      withSuite(`  - name: wrong expectation
    resource: cm.yaml
    expect:
      object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: shop, labels: {team: x}}, data: {a: 1}}
  - name: expects a denial that does not come
    resource: cm.yaml
    expect: {denied: {message: nope}}
  - name: wrong denial message
    resource: pod.yaml
    expect: {denied: {message: "something else", code: 400}}
  - name: expects allowed but denied
    resource: pod.yaml
    expect: {unchanged: true}
`),
    );
    expect(await runCli(['test', 'suite/amender-test.yaml'], io)).toBe(1);
    expect(io.stdout).toContain(
      'FAIL suite/amender-test.yaml: wrong expectation\n     the mutated resource differs from the expected one:\n       /metadata/labels: missing, expected {"team":"x"}\n       /data/a: expected 1, got "1"\n',
    );
    expect(io.stdout).toContain('FAIL suite/amender-test.yaml: expects a denial that does not come\n     expected a denial, but the request was allowed unchanged\n');
    expect(io.stdout).toContain(`FAIL suite/amender-test.yaml: wrong denial message\n     message: expected "something else"\n                got      ${JSON.stringify(DENIAL)}\n     code: expected 400, got 403\n`);
    expect(io.stdout).toContain(`FAIL suite/amender-test.yaml: expects allowed but denied\n     expected the request to be allowed, but it was denied: ${DENIAL}\n`);
    expect(io.stdout).toMatch(/\n0 passed, 4 failed\n$/);
  });

  it('reads the test file strictly: a typo or a missing expectation is a failure, not a pass', async () => {
    const cases: [string, RegExp][] = [
      ['  - name: a\n    resource: cm.yaml\n    expected: {unchanged: true}\n', /cases\[0\]: unknown key "expected"/],
      ['  - name: a\n    resource: cm.yaml\n', /cases\[0\]\.expect: expected an object with one of object, unchanged, denied/],
      ['  - name: a\n    resource: cm.yaml\n    expect: {unchanged: false}\n', /cases\[0\]\.expect\.unchanged: must be true/],
      ['  - name: a\n    resource: cm.yaml\n    expect: {unchanged: true, object: cm.yaml}\n', /give exactly one of object, unchanged, denied \(got unchanged, object\)/],
      ['  - name: a\n    resource: cm.yaml\n    expect: {denied: {code: 403}}\n', /cases\[0\]\.expect\.denied\.message: expected a non-empty string/],
      ['  - name: a\n    operation: UPDATE\n    resource: cm.yaml\n    expect: {unchanged: true}\n', /cases\[0\]: oldResource \(a file\) or oldObject \(inline\) is required/],
      ['  - name: a\n    resource: gone.yaml\n    expect: {unchanged: true}\n', /cannot read suite\/gone\.yaml: no such file or folder/],
    ];
    for (const [text, message] of cases) {
      const io = fakeIO(withSuite(text));
      expect(await runCli(['test', 'suite'], io)).toBe(1);
      expect(io.stdout).toMatch(message);
      expect(io.stdout).toMatch(/0 passed, 1 failed\n$/);
    }
  });

  it('fails a suite whose policies have a document left out', async () => {
    const io = fakeIO({
      'p.yaml': DENY_POLICY.replace('reinvocationPolicy: Never', 'reinvocationPolicy: Sometimes'),
      't/amender-test.yaml': 'policies: [../p.yaml]\ncases:\n  - name: a\n    resource: ../cm.yaml\n    expect: {unchanged: true}\n',
      'cm.yaml': CONFIGMAP_YAML,
    });
    expect(await runCli(['test', 't'], io)).toBe(1);
    expect(io.stdout).toMatch(/^FAIL t\/amender-test\.yaml: the policies have problems that leave documents out of the set:\np\.yaml#0 /);
  });

  it('exits 1 when there is no test to run', async () => {
    const io = fakeIO(files);
    expect(await runCli(['test', 'policies/deny.yaml'], io)).toBe(1);
    const none = fakeIO({ 'x/readme.md': 'hi' });
    expect(await runCli(['test', 'x'], none)).toBe(1);
    expect(none.stderr).toBe('amender test: no amender-test.yaml or kyverno-test.yaml found under x\n');
  });
});
