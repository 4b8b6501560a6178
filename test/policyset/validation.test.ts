import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments, type Problem } from '../../src/policyset/index.js';

/** A valid policy; tests change one thing and look at what is reported. */
function policy(spec: Record<string, unknown> = {}, name = 'p'): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      },
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {}}]' } }],
      reinvocationPolicy: 'Never',
      ...spec,
    },
  };
}

function binding(spec: Record<string, unknown> = {}, name = 'b'): Record<string, unknown> {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: 'p', ...spec } };
}

function load(...docs: unknown[]) {
  return buildPolicySet([parseDocuments('test.json', JSON.stringify(docs))]);
}

function problemsOf(...docs: unknown[]): Problem[] {
  return [...load(...docs).problems];
}

function expectProblem(problems: Problem[], path: string, message: string | RegExp, effect: 'ignored' | 'kept' = 'ignored'): void {
  const hit = problems.find((p) => p.path === path && (typeof message === 'string' ? p.message.includes(message) : message.test(p.message)));
  expect(hit, `no problem at ${path} matching ${message}; got ${JSON.stringify(problems, null, 1)}`).toBeDefined();
  expect(hit!.effect).toBe(effect);
  expect(hit!.source).toBe('test.json');
}

describe('policy validation (spec/map.md §1.1)', () => {
  it('accepts a valid policy and binding and applies the API defaults', () => {
    const set = load(policy(), binding());
    expect(set.problems).toEqual([]);
    const p = set.mutatingPolicies[0];
    expect(p.policy.failurePolicy).toBe('Fail');
    expect(p.policy.matchConstraints!.matchPolicy).toBe('Equivalent');
    expect(p.policy.matchConstraints!.namespaceSelector).toEqual({});
    expect(p.policy.matchConstraints!.objectSelector).toEqual({});
    expect(p.policy.matchConstraints!.resourceRules[0].scope).toBe('*');
  });

  it('metadata.name is required and a DNS subdomain', () => {
    expectProblem(problemsOf({ ...policy(), metadata: {} }), 'metadata.name', 'Required value');
    expectProblem(problemsOf(policy({}, 'Not_Valid')), 'metadata.name', 'RFC 1123 subdomain');
  });

  it('cluster-scoped: metadata.namespace is forbidden', () => {
    expectProblem(problemsOf({ ...policy(), metadata: { name: 'p', namespace: 'x' } }), 'metadata.namespace', 'Forbidden');
  });

  it('paramKind: apiVersion and kind', () => {
    expectProblem(problemsOf(policy({ paramKind: { kind: 'ConfigMap' } })), 'spec.paramKind.apiVersion', 'Required value');
    expectProblem(problemsOf(policy({ paramKind: { apiVersion: 'a/b/c', kind: 'ConfigMap' } })), 'spec.paramKind.apiVersion', 'unexpected GroupVersion string');
    expectProblem(problemsOf(policy({ paramKind: { apiVersion: 'Bad_Group/v1', kind: 'X' } })), 'spec.paramKind.apiVersion', 'RFC 1123 subdomain');
    expectProblem(problemsOf(policy({ paramKind: { apiVersion: 'example.com/', kind: 'X' } })), 'spec.paramKind.apiVersion', 'version must be specified');
    expectProblem(problemsOf(policy({ paramKind: { apiVersion: 'v1' } })), 'spec.paramKind.kind', 'Required value');
    expectProblem(problemsOf(policy({ paramKind: { apiVersion: 'v1', kind: 'Config_Map' } })), 'spec.paramKind.kind', 'may have mixed case');
  });

  it('matchConstraints is required and needs resourceRules', () => {
    const noConstraints = policy();
    delete (noConstraints.spec as Record<string, unknown>).matchConstraints;
    expectProblem(problemsOf(noConstraints), 'spec.matchConstraints', 'Required value');
    expectProblem(problemsOf(policy({ matchConstraints: { resourceRules: [] } })), 'spec.matchConstraints.resourceRules', 'Required value');
  });

  it('operations: DELETE is refused for a mutating policy, unknown operations everywhere', () => {
    const rules = (ops: string[]) => ({ matchConstraints: { resourceRules: [{ operations: ops, apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } });
    expectProblem(problemsOf(policy(rules(['DELETE']))), 'spec.matchConstraints.resourceRules.operations', 'Unsupported value: "DELETE"');
    expectProblem(problemsOf(policy(rules(['PATCH']))), 'spec.matchConstraints.resourceRules[0].operations[0]', 'Unsupported value: "PATCH"');
    expectProblem(problemsOf(policy(rules(['*', 'CREATE']))), 'spec.matchConstraints.resourceRules[0].operations', "if '*' is present");
    expectProblem(problemsOf(policy(rules([]))), 'spec.matchConstraints.resourceRules[0].operations', 'Required value');
    expect(problemsOf(policy(rules(['CREATE', 'UPDATE', 'CONNECT'])), binding())).toEqual([]);
  });

  it('rules: groups, versions, resources and scope', () => {
    const rule = (r: Record<string, unknown>) => ({
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], ...r }] },
    });
    const at = 'spec.matchConstraints.resourceRules[0]';
    expectProblem(problemsOf(policy(rule({ apiGroups: [] }))), `${at}.apiGroups`, 'Required value');
    expectProblem(problemsOf(policy(rule({ apiGroups: ['*', 'apps'] }))), `${at}.apiGroups`, "if '*' is present, must not specify other API groups");
    expectProblem(problemsOf(policy(rule({ apiVersions: ['*', 'v1'] }))), `${at}.apiVersions`, "if '*' is present, must not specify other API versions");
    expectProblem(problemsOf(policy(rule({ apiVersions: ['v1', ''] }))), `${at}.apiVersions[1]`, 'Required value');
    expectProblem(problemsOf(policy(rule({ resources: [] }))), `${at}.resources`, 'Required value');
    expectProblem(problemsOf(policy(rule({ resources: ['*/*', 'pods'] }))), `${at}.resources`, "if '*/*' is present");
    expectProblem(problemsOf(policy(rule({ resources: ['*', 'pods'] }))), `${at}.resources`, "if '*' is present, must not specify other resources without subresources");
    expectProblem(problemsOf(policy(rule({ resources: ['pods/*', 'pods/status'] }))), `${at}.resources[1]`, "if 'pods/*' is present, must not specify pods/status");
    expectProblem(problemsOf(policy(rule({ resources: ['*/status', 'pods/status'] }))), `${at}.resources[1]`, "if '*/status' is present, must not specify pods/status");
    expectProblem(problemsOf(policy(rule({ scope: 'Everywhere' }))), `${at}.scope`, 'Unsupported value: "Everywhere"');
  });

  it('resourceNames: path segments, unique', () => {
    const rule = (names: string[]) => ({
      matchConstraints: { resourceRules: [{ resourceNames: names, operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
    });
    const at = 'spec.matchConstraints.resourceRules[0].resourceNames';
    expectProblem(problemsOf(policy(rule(['a/b']))), `${at}[0]`, "may not contain '/'");
    expectProblem(problemsOf(policy(rule(['..']))), `${at}[0]`, "may not be '..'");
    expectProblem(problemsOf(policy(rule(['a', 'a']))), `${at}[1]`, 'Duplicate value: "a"');
  });

  it('excludeResourceRules are validated like resourceRules', () => {
    const spec = {
      matchConstraints: {
        resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        excludeResourceRules: [{ operations: ['CREATE'], apiGroups: [], apiVersions: ['v1'], resources: ['pods'] }],
      },
    };
    expectProblem(problemsOf(policy(spec)), 'spec.matchConstraints.excludeResourceRules[0].apiGroups', 'Required value');
  });

  it('selectors are validated strictly', () => {
    const mc = (sel: Record<string, unknown>) => ({
      matchConstraints: {
        namespaceSelector: sel,
        resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      },
    });
    const at = 'spec.matchConstraints.namespaceSelector';
    expectProblem(problemsOf(policy(mc({ matchLabels: { 'bad key': 'x' } }))), `${at}.matchLabels`, 'Invalid value: "bad key"');
    expectProblem(problemsOf(policy(mc({ matchLabels: { k: 'bad value' } }))), `${at}.matchLabels`, 'Invalid value: "bad value"');
    expectProblem(problemsOf(policy(mc({ matchExpressions: [{ key: 'k', operator: 'In' }] }))), `${at}.matchExpressions[0].values`, 'Required value');
    expectProblem(problemsOf(policy(mc({ matchExpressions: [{ key: 'k', operator: 'Exists', values: ['a'] }] }))), `${at}.matchExpressions[0].values`, 'Forbidden');
    expectProblem(problemsOf(policy(mc({ matchExpressions: [{ key: 'k', operator: 'Near', values: ['a'] }] }))), `${at}.matchExpressions[0].operator`, 'not a valid selector operator');
    expectProblem(problemsOf(policy(mc({ matchExpressions: [{ key: 'k', operator: 'In', values: ['a b'] }] }))), `${at}.matchExpressions[0].values[0]`, 'Invalid value: "a b"');
  });

  it('matchPolicy must be Exact or Equivalent', () => {
    const spec = {
      matchConstraints: { matchPolicy: 'Loose', resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
    };
    expectProblem(problemsOf(policy(spec)), 'spec.matchConstraints.matchPolicy', 'Unsupported value: "Loose"');
  });

  it('failurePolicy must be Fail or Ignore; reinvocationPolicy is required', () => {
    expectProblem(problemsOf(policy({ failurePolicy: 'Maybe' })), 'spec.failurePolicy', 'Unsupported value: "Maybe"');
    const p = policy();
    delete (p.spec as Record<string, unknown>).reinvocationPolicy;
    expectProblem(problemsOf(p), 'spec.reinvocationPolicy', 'Required value');
    expectProblem(problemsOf(policy({ reinvocationPolicy: 'Always' })), 'spec.reinvocationPolicy', 'Unsupported value: "Always"');
  });

  it('mutations: at least one, patchType and its member', () => {
    expectProblem(problemsOf(policy({ mutations: [] })), 'spec.mutations', 'Required value');
    expectProblem(problemsOf(policy({ mutations: [{ jsonPatch: { expression: '[]' } }] })), 'spec.mutations[0].patchType', 'Required value');
    expectProblem(problemsOf(policy({ mutations: [{ patchType: 'Merge' }] })), 'spec.mutations[0].patchType', 'Unsupported value: "Merge"');
    expectProblem(problemsOf(policy({ mutations: [{ patchType: 'JSONPatch' }] })), 'spec.mutations[0].jsonPatch', 'must be specified when patchType is JSONPatch');
    expectProblem(
      problemsOf(policy({ mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' }, jsonPatch: { expression: '[]' } }] })),
      'spec.mutations[0].jsonPatch',
      'must not be specified when patchType is ApplyConfiguration',
    );
    expectProblem(problemsOf(policy({ mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '  ' } }] })), 'spec.mutations[0].jsonPatch.expression', 'Required value');
  });

  it('matchConditions: at most 64, names required, qualified and unique, expressions present', () => {
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    expectProblem(problemsOf(policy({ matchConditions: many })), 'spec.matchConditions', 'Too many: 65: must have at most 64 items');
    expectProblem(problemsOf(policy({ matchConditions: [{ expression: 'true' }] })), 'spec.matchConditions[0].name', 'Required value');
    expectProblem(problemsOf(policy({ matchConditions: [{ name: 'not valid!', expression: 'true' }] })), 'spec.matchConditions[0].name', 'Invalid value');
    expectProblem(
      problemsOf(policy({ matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'true' }] })),
      'spec.matchConditions[1].name',
      'Duplicate value: "a"',
    );
    expectProblem(problemsOf(policy({ matchConditions: [{ name: 'a', expression: '' }] })), 'spec.matchConditions[0].expression', 'Required value');
  });

  it('variables: names are CEL identifiers, expressions present', () => {
    expectProblem(problemsOf(policy({ variables: [{ name: '1x', expression: '1' }] })), 'spec.variables[0].name', 'not a valid CEL identifier');
    expectProblem(problemsOf(policy({ variables: [{ name: 'in', expression: '1' }] })), 'spec.variables[0].name', 'not a valid CEL identifier');
    expectProblem(problemsOf(policy({ variables: [{ name: '', expression: '1' }] })), 'spec.variables[0].name', 'Required value');
    expectProblem(problemsOf(policy({ variables: [{ name: 'x', expression: '' }] })), 'spec.variables[0].expression', 'Required value');
  });

  it('strict decoding: unknown fields and wrong types', () => {
    expectProblem(problemsOf(policy({ failurePolcy: 'Fail' })), 'spec.failurePolcy', 'unknown field "spec.failurePolcy"');
    expectProblem(problemsOf(policy({ mutations: 'x' })), 'spec.mutations', 'must be a list');
    expectProblem(problemsOf(policy({ failurePolicy: 3 })), 'spec.failurePolicy', 'must be a string');
  });
});

/** The API server's semantics for a policy it already stores (BuildOptions `compileErrors: 'keep'`). */
function loadStored(...docs: unknown[]) {
  return buildPolicySet([parseDocuments('test.json', JSON.stringify(docs))], { compileErrors: 'keep' });
}

describe('compile errors refuse the policy, as the API server refuses its create (spec/map.md §3, §12)', () => {
  const typo = policy({ mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/x", value: nope}]' } }] });

  it('reports the expression and leaves the policy out; the other documents load', () => {
    const set = load(typo, binding(), policy({}, 'good'), binding({ policyName: 'good' }, 'good-binding'));
    expectProblem([...set.problems], 'spec.mutations[0].jsonPatch.expression', /undeclared reference|nope/, 'ignored');
    expect(set.mutatingPolicies.map((p) => p.policy.name)).toEqual(['good']);
    expect(set.counts.mutatingAdmissionPolicies).toBe(1);
  });

  it("compileErrors: 'keep' keeps a stored policy active, its errors surfacing at evaluation", () => {
    const set = loadStored(typo, binding());
    expectProblem([...set.problems], 'spec.mutations[0].jsonPatch.expression', /undeclared reference|nope/, 'kept');
    expect(set.mutatingPolicies.map((p) => p.policy.name)).toEqual(['p']);
    expect(() => buildPolicySet([], { compileErrors: 'maybe' as 'keep' })).toThrow(/compileErrors: expected 'refuse' or 'keep'/);
  });

  it('a matchCondition that reads variables does not compile', () => {
    const doc = policy({ variables: [{ name: 'v', expression: 'true' }], matchConditions: [{ name: 'c', expression: 'variables.v' }] });
    expectProblem(problemsOf(doc, binding()), 'spec.matchConditions[0].expression', /variables/, 'ignored');
    expect(load(doc, binding()).mutatingPolicies).toHaveLength(0);
    expectProblem([...loadStored(doc, binding()).problems], 'spec.matchConditions[0].expression', /variables/, 'kept');
    expect(loadStored(doc, binding()).mutatingPolicies).toHaveLength(1);
  });

  it('a matchCondition must be bool; a JSONPatch mutation list(JSONPatch); an ApplyConfiguration Object', () => {
    const set = load(
      policy({
        matchConditions: [{ name: 'c', expression: '"yes"' }],
        mutations: [
          { patchType: 'JSONPatch', jsonPatch: { expression: '"x"' } },
          { patchType: 'ApplyConfiguration', applyConfiguration: { expression: '1' } },
        ],
      }),
      binding(),
    );
    expectProblem([...set.problems], 'spec.matchConditions[0].expression', /bool/);
    expectProblem([...set.problems], 'spec.mutations[0].jsonPatch.expression', /JSONPatch/);
    expectProblem([...set.problems], 'spec.mutations[1].applyConfiguration.expression', /Object/);
  });

  it('params are declared only with a paramKind', () => {
    const set = load(policy({ mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: params.data}}' } }] }), binding());
    expectProblem([...set.problems], 'spec.mutations[0].applyConfiguration.expression', /params/);
  });
});

describe('binding validation (spec/map.md §1.2)', () => {
  it('policyName is required and a DNS subdomain', () => {
    expectProblem(problemsOf(policy(), binding({ policyName: '' })), 'spec.policyName', 'Required value');
    expectProblem(problemsOf(policy(), binding({ policyName: 'No_Way' })), 'spec.policyName', 'RFC 1123 subdomain');
  });

  it('paramRef: exactly one of name and selector; action Allow or Deny', () => {
    expectProblem(problemsOf(policy(), binding({ paramRef: { parameterNotFoundAction: 'Deny' } })), 'spec.paramRef', 'one of name or selector must be specified');
    const both = problemsOf(policy(), binding({ paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Deny' } }));
    expectProblem(both, 'spec.paramRef.name', 'mutually exclusive');
    expectProblem(both, 'spec.paramRef.selector', 'mutually exclusive');
    expectProblem(problemsOf(policy(), binding({ paramRef: { name: 'a/b', parameterNotFoundAction: 'Deny' } })), 'spec.paramRef.name', "may not contain '/'");
    expectProblem(problemsOf(policy(), binding({ paramRef: { name: 'a', parameterNotFoundAction: 'Maybe' } })), 'spec.paramRef.parameterNotFoundAction', 'Unsupported value');
  });

  it('a missing parameterNotFoundAction is reported, the binding stays (runtime: Allow)', () => {
    const set = load(policy({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }), binding({ paramRef: { name: 'cm' } }));
    expectProblem([...set.problems], 'spec.paramRef.parameterNotFoundAction', 'Required value', 'kept');
    expect(set.mutatingPolicies[0].bindings.map((b) => b.name)).toEqual(['b']);
  });

  it('matchResources: same checks as the policy, empty resourceRules allowed, no DELETE', () => {
    expect(problemsOf(policy(), binding({ matchResources: { resourceRules: [] } }))).toEqual([]);
    expectProblem(
      problemsOf(policy(), binding({ matchResources: { resourceRules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } })),
      'spec.matchResources.resourceRules.operations',
      'Unsupported value: "DELETE"',
    );
    expectProblem(problemsOf(policy(), binding({ matchResources: { objectSelector: { matchLabels: { a: '!' } } } })), 'spec.matchResources.objectSelector.matchLabels', 'Invalid value: "!"');
  });
});

describe('one broken document never takes the others down', () => {
  it('keeps every valid policy and binding, reports each problem with its document', () => {
    const text = [
      '# a good policy',
      JSON.stringify(policy({}, 'good')),
      '---',
      JSON.stringify(policy({ failurePolicy: 'Maybe' }, 'bad')),
      '---',
      'this: [is, not: valid',
      '---',
      JSON.stringify(binding({ policyName: 'good' }, 'good-binding')),
      '---',
      JSON.stringify(binding({ policyName: 'bad' }, 'bad-binding')),
      '---',
      '42',
    ].join('\n');
    const set = buildPolicySet([parseDocuments('mixed.yaml', text)]);
    expect(set.mutatingPolicies.map((p) => p.policy.name)).toEqual(['good']);
    expect(set.mutatingPolicies[0].bindings.map((b) => b.name)).toEqual(['good-binding']);
    const byIndex = (i: number) => set.problems.filter((p) => p.index === i);
    expect(byIndex(1)).toMatchObject([{ source: 'mixed.yaml', kind: 'MutatingAdmissionPolicy', name: 'bad', path: 'spec.failurePolicy', effect: 'ignored' }]);
    expect(byIndex(2)[0].message).toMatch(/YAML/);
    expect(byIndex(5)[0].message).toMatch(/not an object/);
    expect(set.counts.mutatingAdmissionPolicies).toBe(1);
    expect(set.counts.problems).toBe(set.problems.length);
  });

  it('reports duplicates and keeps the first', () => {
    const set = buildPolicySet([parseDocuments('a.json', JSON.stringify(policy())), parseDocuments('b.json', JSON.stringify(policy()))]);
    expect(set.mutatingPolicies).toHaveLength(1);
    expect(set.problems).toMatchObject([{ source: 'b.json', name: 'p', message: expect.stringContaining('a.json') }]);
  });

  it('flattens List documents and keeps their positions', () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [policy({ failurePolicy: 'x' }), binding()] };
    const set = buildPolicySet([parseDocuments('list.json', JSON.stringify(list))]);
    expect(set.problems).toMatchObject([{ source: 'list.json', index: 0, item: 0, path: 'spec.failurePolicy' }]);
  });
});
