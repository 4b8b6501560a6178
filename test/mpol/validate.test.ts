/**
 * Kyverno's MutatingPolicy validation (pkg/cel/policies/mpol validate_test.go TestValidate, its cases as
 * data) through `amender validate`: Kyverno compiles the policy and asks for one resource rule and one
 * evaluation mode; its CRD requires no operations, groups, versions or resources in a rule and no mutation,
 * so such policies are accepted (they match nothing, or change nothing).
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';

const policy = (name: string, spec: string) => `apiVersion: policies.kyverno.io/v1beta1
kind: MutatingPolicy
metadata: {name: ${name}}
spec:
${spec}`;

const DEPLOYMENTS = '  matchConstraints: {resourceRules: [{apiGroups: [apps], resources: [deployments]}]}\n';
const PODS = '  matchConstraints: {resourceRules: [{apiGroups: [""], resources: [pods]}]}\n';
const CONFIGMAPS = '  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}\n';
const LABEL_SEEN = `  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"seen": "yes"}}}'}}]\n`;
const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {a: b}\n';

const CASES: { name: string; spec: string; accepted: boolean; message?: string }[] = [
  { name: 'valid-mpol', spec: DEPLOYMENTS, accepted: true },
  {
    name: 'all-modes-disabled',
    spec: `  evaluation: {admission: {enabled: false}, mutateExisting: {enabled: false}}\n${DEPLOYMENTS}`,
    accepted: false,
    message: 'spec.evaluation: Forbidden: disabling both admission and mutateExisting evaluation modes is not allowed',
  },
  { name: 'no-constraints', spec: '  {}\n', accepted: false, message: 'spec.matchConstraints: Required value' },
  { name: 'empty-rules', spec: '  matchConstraints: {resourceRules: []}\n', accepted: false, message: 'spec.matchConstraints.resourceRules: Required value' },
  { name: 'exclude-only', spec: '  matchConstraints: {excludeResourceRules: [{apiGroups: [batch], resources: [jobs]}]}\n', accepted: false, message: 'spec.matchConstraints.resourceRules: Required value' },
  {
    name: 'invalid-policy',
    spec: `${DEPLOYMENTS}  matchConditions: [{name: invalid-cel, expression: 'this is not a CEL expression'}]\n  failurePolicy: Fail\n`,
    accepted: false,
    message: 'spec.matchConditions[0].expression: Invalid value',
  },
  { name: 'valid-mpol-with-cel', spec: `${PODS}  matchConditions: [{name: isProd, expression: 'object.metadata.labels["env"] == "prod"'}]\n`, accepted: true },
  {
    name: 'invalid-map-compatible-mpol',
    spec: `${PODS}  variables: [{name: targetName, expression: '"test"'}]\n  matchConditions: [{name: uses-variable, expression: 'variables.targetName == "test"'}]\n  autogen: {mutatingAdmissionPolicy: {enabled: true}}\n`,
    accepted: false,
    message: 'spec.matchConditions[0].expression: Forbidden: variables cannot be referenced in matchConditions',
  },
  // Kyverno's MutatingPolicy environment declares no authorizer (mpol compiler.go newExtendedEnv): it does
  // not compile, in conditions as in mutations.
  {
    name: 'authorizer-in-condition',
    spec: `${CONFIGMAPS}  matchConditions: [{name: authz, expression: 'authorizer.group("").resource("pods").check("get").allowed()'}]\n`,
    accepted: false,
    message: "spec.matchConditions[0].expression: Invalid value: \"authorizer.group(\\\"\\\").resource(\\\"pods\\\").check(\\\"get\\\").allowed()\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer'",
  },
  {
    name: 'authorizer-in-mutation',
    spec: `${CONFIGMAPS}  mutations: [{patchType: JSONPatch, jsonPatch: {expression: '[JSONPatch{op: "add", path: "/data/a", value: string(authorizer.requestResource.check("get").allowed())}]'}}]\n`,
    accepted: false,
    message: 'spec.mutations[0].jsonPatch.expression: Invalid value',
  },
];

describe("Kyverno's MutatingPolicy validation cases through amender validate", () => {
  it.each(CASES)('$name', async ({ name, spec, accepted, message }) => {
    const io = fakeIO({ 'p.yaml': policy(name, spec) });
    const code = await runCli(['validate', 'p.yaml'], io);
    if (accepted) {
      expect(io.stderr).toBe('');
      expect(code).toBe(0);
    } else {
      expect(code).toBe(1);
      expect(io.stderr).toContain(`MutatingPolicy/${name}: ${message}`);
    }
  });

  it('leaves out a policy enabled for mutateExisting only (Kyverno accepts it; it never runs at admission)', async () => {
    const io = fakeIO({ 'p.yaml': policy('mutate-existing-only', `  evaluation: {admission: {enabled: false}, mutateExisting: {enabled: true}}\n${DEPLOYMENTS}`) });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('MutatingPolicy/mutate-existing-only: spec.evaluation.admission.enabled: false: the policy never runs at admission');
  });

  it('accepts an operation, scope or matchPolicy kube does not know (no enum in Kyverno\'s CRD): such a rule matches nothing', async () => {
    const spec = `  matchConstraints: {matchPolicy: Sometimes, resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, PATCH], resources: [configmaps], scope: Everywhere}]}\n${LABEL_SEEN}`;
    const io = fakeIO({ 'p.yaml': policy('bad-values', spec), 'cm.yaml': CONFIGMAP });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(0);
    expect(io.stderr).toBe('');
    const apply = fakeIO({ 'p.yaml': policy('bad-values', spec), 'cm.yaml': CONFIGMAP });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], apply)).toBe(0);
    expect(parseYaml(apply.stdout).metadata.labels).toBeUndefined();
  });

  it('accepts DELETE among the operations (chainsaw existing/expression/delete-get); the other operations still mutate, DELETE is never mutated', async () => {
    const spec = `  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE, DELETE], resources: [configmaps]}]}\n${LABEL_SEEN}`;
    const files = { 'p.yaml': policy('with-delete', spec), 'cm.yaml': CONFIGMAP };
    const io = fakeIO(files);
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(0);
    expect(io.stderr).toBe('');
    const create = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], create)).toBe(0);
    expect(parseYaml(create.stdout).metadata.labels).toEqual({ seen: 'yes' });
    const del = fakeIO(files);
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml', '--operation', 'DELETE', '--patch'], del)).toBe(0);
    expect(JSON.parse(del.stdout)).toEqual([]);
    // The webhook is not sent DELETE requests for it.
    const hook = fakeIO(files);
    expect(await runCli(['webhook-config', '--url', 'https://a.example/mutate', '--policies', 'p.yaml', '--json'], hook)).toBe(0);
    expect(JSON.parse(hook.stdout).webhooks[0].rules).toEqual([{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }]);
    const only = fakeIO({ 'p.yaml': policy('delete-only', `  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [configmaps]}]}\n${LABEL_SEEN}`) });
    expect(await runCli(['validate', 'p.yaml'], only)).toBe(0);
    const onlyHook = fakeIO({ 'p.yaml': policy('delete-only', `  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [configmaps]}]}\n${LABEL_SEEN}`) });
    expect(await runCli(['webhook-config', '--url', 'https://a.example/mutate', '--policies', 'p.yaml'], onlyHook)).toBe(1);
    expect(onlyHook.stderr).toContain('MutatingPolicy/delete-only: its matchConstraints resourceRules match no request');
    expect(onlyHook.stderr).toContain('or only DELETE, which is never mutated');
  });

  describe('what kube-apiserver checks of a MutatingAdmissionPolicy and Kyverno does not (mpol.Validate compiles; the CRD has no such rules)', () => {
    const run = async (name: string, spec: string, resource = CONFIGMAP) => {
      const files = { 'p.yaml': policy(name, spec), 'r.yaml': resource };
      const validate = fakeIO(files);
      const code = await runCli(['validate', 'p.yaml'], validate);
      const apply = fakeIO(files);
      const applied = await runCli(['apply', '--policies', 'p.yaml', '--resource', 'r.yaml'], apply);
      return { code, stderr: validate.stderr, applied, stdout: apply.stdout, applyErr: apply.stderr };
    };
    const ac = (labels: string) => `{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: ${labels}}}'}}`;

    it('skips a mutation whose patchType names a member it lacks, or an unknown patchType, and applies the others (compiler.go switch m.PatchType)', async () => {
      const mutations = [
        `{patchType: JSONPatch, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"skipped": "1"}}}'}}`,
        `{patchType: ApplyConfiguration, jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"skipped": "2"}}]'}}`,
        `{patchType: Merge, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"skipped": "3"}}}'}}`,
        `{patchType: "", applyConfiguration: {expression: 'not even CEL ('}}`,
        // Both members: the one patchType names runs, the other is never compiled.
        `{patchType: JSONPatch, jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"json": "yes"}}]'}, applyConfiguration: {expression: 'not even CEL ('}}`,
        ac('{"seen": "yes"}'),
      ];
      const r = await run('skipped-mutations', `${CONFIGMAPS}  mutations: [${mutations.join(', ')}]\n`);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.applied).toBe(0);
      expect(parseYaml(r.stdout).metadata.labels).toEqual({ json: 'yes', seen: 'yes' });
    });

    it('never reads the expression of a skipped mutation: a cluster call there refuses nothing', async () => {
      const skipped = `{patchType: JSONPatch, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"v": resource.Get("v1", "configmaps", "default", "x").data.v}}}'}}`;
      const r = await run('skipped-call', `${CONFIGMAPS}  mutations: [${skipped}, ${ac('{"seen": "yes"}')}]\n`);
      expect(r.stderr).toBe('');
      expect(parseYaml(r.stdout).metadata.labels).toEqual({ seen: 'yes' });
    });

    it('still refuses a mutation without patchType (the CRD requires it) and an expression that does not compile in the member that runs', async () => {
      const r = await run('no-patch-type', `${CONFIGMAPS}  mutations: [{applyConfiguration: {expression: 'Object{}'}}]\n`);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('MutatingPolicy/no-patch-type: spec.mutations[0].patchType: Required value');
      const bad = await run('bad-json-patch', `${CONFIGMAPS}  mutations: [${ac('{"a": "b"}')}, {patchType: JSONPatch, jsonPatch: {expression: 'not even CEL ('}}]\n`);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('MutatingPolicy/bad-json-patch: spec.mutations[1].jsonPatch.expression: Invalid value');
    });

    it('takes empty and free-text matchCondition names, and more than 64 conditions', async () => {
      const conditions = [`{name: "", expression: 'true'}`, `{name: "not a qualified name!", expression: 'true'}`];
      for (let i = 0; i < 64; i++) conditions.push(`{name: c${i}, expression: 'true'}`);
      const r = await run('condition-names', `${CONFIGMAPS}  matchConditions: [${conditions.join(', ')}]\n  mutations: [${ac('{"seen": "yes"}')}]\n`);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(parseYaml(r.stdout).metadata.labels).toEqual({ seen: 'yes' });
    });

    it('still refuses a matchCondition or variable without a name key (the CRD requires it)', async () => {
      const r = await run('no-names', `${CONFIGMAPS}  matchConditions: [{expression: 'true'}]\n  variables: [{expression: '1'}]\n  mutations: [${ac('{"seen": "yes"}')}]\n`);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('MutatingPolicy/no-names: spec.matchConditions[0].name: Required value');
      expect(r.stderr).toContain('MutatingPolicy/no-names: spec.variables[0].name: Required value');
    });

    it('takes a variable name that is not a CEL identifier, or an empty one (CompileVariables registers any name; no expression can reach it)', async () => {
      const r = await run('variable-names', `${CONFIGMAPS}  variables: [{name: my-var, expression: '"no"'}, {name: "", expression: '"no"'}, {name: seen, expression: '"yes"'}]\n  mutations: [${ac('{"seen": variables.seen}')}]\n`);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(parseYaml(r.stdout).metadata.labels).toEqual({ seen: 'yes' });
    });

    it('takes an invalid namespaceSelector: a cluster-scoped request runs, a namespaced one fails the policy (its failurePolicy decides), as matcher.go returns the selector error only then', async () => {
      const rules = `  matchConstraints:\n    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps, namespaces]}]\n    namespaceSelector: {matchExpressions: [{key: a, operator: In}]}\n`;
      const spec = `${rules}  mutations: [${ac('{"seen": "yes"}')}]\n`;
      const r = await run('bad-selector', spec, 'apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.applied).toBe(1); // a Namespace is judged by its own labels: the selector is read, and fails
      expect(r.applyErr + r.stdout).toContain("for 'in', 'notin' operators, values set can't be empty");
      const namespaced = await run('bad-selector', spec);
      expect(namespaced.applied).toBe(1);
      expect(namespaced.applyErr + namespaced.stdout).toContain("for 'in', 'notin' operators, values set can't be empty");
      const ignored = await run('bad-selector', `${spec}  failurePolicy: Ignore\n`);
      // Unchanged under Ignore; amender apply exits 1 on the error result, as kyverno apply does.
      expect(ignored.applied).toBe(1);
      expect(parseYaml(ignored.stdout).metadata.labels).toBeUndefined();
      const cluster = await run('bad-selector', `  matchConstraints:\n    resourceRules: [{apiGroups: [rbac.authorization.k8s.io], apiVersions: [v1], operations: [CREATE], resources: [clusterroles]}]\n    namespaceSelector: {matchExpressions: [{key: a, operator: In}]}\n  mutations: [${ac('{"seen": "yes"}')}]\n`, 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\nrules: []\n');
      expect(cluster.applied).toBe(0);
      expect(parseYaml(cluster.stdout).metadata.labels).toEqual({ seen: 'yes' });
    });
  });

  describe("what Kyverno's CRD schema makes the API server refuse (config/crds/policies.kyverno.io)", () => {
    const refused = async (name: string, spec: string, kind = 'MutatingPolicy', apiVersion = 'policies.kyverno.io/v1') => {
      const io = fakeIO({ 'p.yaml': policy(name, spec).replace('policies.kyverno.io/v1beta1', apiVersion).replace('kind: MutatingPolicy', `kind: ${kind}`) });
      expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
      return io.stderr;
    };
    const AC = `  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'}}]\n`;

    it('refuses duplicate names in matchConditions, variables and targetMatchConditions (x-kubernetes-list-type: map, keyed by name)', async () => {
      const spec = `${CONFIGMAPS}  matchConditions: [{name: same, expression: 'true'}, {name: same, expression: 'false'}]\n  variables: [{name: v, expression: '1'}, {name: w, expression: '2'}, {name: v, expression: '3'}]\n  targetMatchConditions: [{name: t, expression: 'true'}, {name: t, expression: 'true'}]\n${AC}`;
      const stderr = await refused('duplicate-names', spec);
      expect(stderr).toContain('MutatingPolicy/duplicate-names: spec.matchConditions[1]: Duplicate value: map[string]interface {}{"name":"same"}');
      expect(stderr).toContain('MutatingPolicy/duplicate-names: spec.variables[2]: Duplicate value: map[string]interface {}{"name":"v"}');
      expect(stderr).toContain('MutatingPolicy/duplicate-names: spec.targetMatchConditions[1]: Duplicate value: map[string]interface {}{"name":"t"}');
    });

    it('refuses an auditAnnotation without key or valueExpression, a targetMatchCondition without expression, a selector requirement without key or operator', async () => {
      const spec = `  matchConstraints:\n    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]\n    namespaceSelector: {matchExpressions: [{key: a, values: [b]}]}\n    objectSelector: {matchExpressions: [{operator: Exists}]}\n  auditAnnotations: [{key: k}, {valueExpression: '"x"'}]\n  targetMatchConditions: [{name: t}]\n${AC}`;
      const stderr = await refused('required-members', spec);
      for (const path of ['spec.auditAnnotations[0].valueExpression', 'spec.auditAnnotations[1].key', 'spec.targetMatchConditions[0].expression', 'spec.matchConstraints.namespaceSelector.matchExpressions[0].operator', 'spec.matchConstraints.objectSelector.matchExpressions[0].key']) {
        expect(stderr).toContain(`MutatingPolicy/required-members: ${path}: Required value`);
      }
    });

    it('refuses a value of another type or an unknown field in evaluation, autogen and webhookConfiguration: a quoted enabled: "false" does not run the policy', async () => {
      const spec = `  evaluation: {admission: {enabled: "false"}, mutateExisting: {enabled: 1}, mode: 5, useServerSideApply: "yes", extra: true}\n  autogen: {podControllers: {controllers: deployments}, other: {}}\n  webhookConfiguration: {timeoutSeconds: "10"}\n${CONFIGMAPS}${AC}`;
      const stderr = await refused('section-types', spec);
      for (const line of [
        'spec.evaluation.admission.enabled: Invalid value: "false": must be of type boolean',
        'spec.evaluation.mutateExisting.enabled: Invalid value: 1: must be of type boolean',
        'spec.evaluation.mode: Invalid value: 5: must be of type string',
        'spec.evaluation.useServerSideApply: Invalid value: "yes": must be of type boolean',
        'spec.evaluation.extra: unknown field "spec.evaluation.extra"',
        'spec.autogen.podControllers.controllers: Invalid value: "deployments": must be of type array',
        'spec.autogen.other: unknown field "spec.autogen.other"',
        'spec.webhookConfiguration.timeoutSeconds: Invalid value: "10": must be of type integer',
      ]) {
        expect(stderr).toContain(`MutatingPolicy/section-types: ${line}`);
      }
      // The same sections, well typed, load.
      const io = fakeIO({ 'p.yaml': policy('typed', `  evaluation: {admission: {enabled: true}, background: {enabled: false}, mode: Kubernetes, skipBackgroundRequests: true}\n  autogen: {mutatingAdmissionPolicy: {enabled: false}, podControllers: {controllers: [deployments]}}\n  webhookConfiguration: {timeoutSeconds: 10}\n${CONFIGMAPS}${AC}`) });
      expect(await runCli(['validate', 'p.yaml'], io)).toBe(0);
      expect(io.stderr).toBe('');
    });

    it('refuses a targetMatchCondition that does not compile or is not a bool, as Kyverno compiles them with the policy (they never run at admission)', async () => {
      const conditions = `[{name: syntax, expression: 'this is ( not cel'}, {name: string, expression: '"x"'}, {name: fine, expression: 'variables.v == 1 && object.metadata.name != ""'}]`;
      const stderr = await refused('target-conditions', `${CONFIGMAPS}  variables: [{name: v, expression: '1'}]\n  targetMatchConditions: ${conditions}\n${AC}`);
      expect(stderr).toContain('MutatingPolicy/target-conditions: spec.targetMatchConditions[0].expression: Invalid value: "this is ( not cel": compilation failed');
      expect(stderr).toContain('MutatingPolicy/target-conditions: spec.targetMatchConditions[1].expression: Invalid value: "\\"x\\"": must evaluate to bool but got string');
      expect(stderr).not.toContain('targetMatchConditions[2]');
      // Ones that compile keep the policy (a warning: they are the background controller's).
      const io = fakeIO({ 'p.yaml': policy('target-conditions', `${CONFIGMAPS}  variables: [{name: v, expression: '1'}]\n  targetMatchConditions: [{name: fine, expression: 'variables.v == 1'}]\n${AC}`) });
      expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
      expect(io.stderr).toContain('spec.targetMatchConditions: conditions on mutateExisting targets apply to Kyverno\'s background controller only; ignored (kept, in force)');
      expect(io.stderr).not.toContain('(ignored)');
    });

    it("refuses a NamespacedMutatingPolicy whose namespace is no DNS-1123 label (the API server's object meta check)", async () => {
      const doc = (ns: string) => policy('in-ns', `${CONFIGMAPS}${AC}`).replace('kind: MutatingPolicy', 'kind: NamespacedMutatingPolicy').replace('metadata: {name: in-ns}', `metadata: {name: in-ns, namespace: ${ns}}`);
      const bad = fakeIO({ 'p.yaml': doc('Team_A') });
      expect(await runCli(['validate', 'p.yaml'], bad)).toBe(1);
      expect(bad.stderr).toContain('NamespacedMutatingPolicy/in-ns: metadata.namespace: Invalid value: "Team_A": a lowercase RFC 1123 label must consist of');
      const good = fakeIO({ 'p.yaml': doc('team-a') });
      expect(await runCli(['validate', 'p.yaml'], good)).toBe(0);
    });

    it('refuses a targetMatchConstraints of another shape than MatchResources and expression; an empty one loads', async () => {
      expect(await refused('targets-string', `${CONFIGMAPS}  targetMatchConstraints: "x"\n${AC}`)).toContain('MutatingPolicy/targets-string: spec.targetMatchConstraints: Invalid value: "x": must be an object');
      const stderr = await refused('targets-shape', `${CONFIGMAPS}  targetMatchConstraints: {resourceRules: "x", extra: 1, expression: 5}\n${AC}`);
      for (const line of ['spec.targetMatchConstraints.resourceRules: Invalid value: "x": must be a list', 'spec.targetMatchConstraints.extra: unknown field "spec.targetMatchConstraints.extra"', 'spec.targetMatchConstraints.expression: Invalid value: 5: must be a string']) {
        expect(stderr).toContain(`MutatingPolicy/targets-shape: ${line}`);
      }
      for (const targets of ['{}', '{resourceRules: [], expression: ""}']) {
        const io = fakeIO({ 'p.yaml': policy('no-targets', `${CONFIGMAPS}  targetMatchConstraints: ${targets}\n${AC}`) });
        expect(await runCli(['validate', 'p.yaml'], io)).toBe(0);
      }
    });

    it('leaves out a NamespacedMutatingPolicy of v1alpha1: Kyverno serves that kind as v1beta1 and v1 only (its CLI: "policy type not supported")', async () => {
      const stderr = await refused('nmp', `${CONFIGMAPS}${AC}`, 'NamespacedMutatingPolicy', 'policies.kyverno.io/v1alpha1');
      expect(stderr).toContain('NamespacedMutatingPolicy of apiVersion policies.kyverno.io/v1alpha1: Kyverno serves it, and Amender reads it, as policies.kyverno.io/v1beta1, policies.kyverno.io/v1; the document is left out (ignored)');
      for (const apiVersion of ['policies.kyverno.io/v1beta1', 'policies.kyverno.io/v1']) {
        const io = fakeIO({ 'p.yaml': policy('nmp', `${CONFIGMAPS}${AC}`).replace('policies.kyverno.io/v1beta1', apiVersion).replace('kind: MutatingPolicy', 'kind: NamespacedMutatingPolicy') });
        expect(await runCli(['validate', 'p.yaml'], io)).toBe(0);
      }
      const cluster = fakeIO({ 'p.yaml': policy('m', `${CONFIGMAPS}${AC}`).replace('policies.kyverno.io/v1beta1', 'policies.kyverno.io/v1alpha1') });
      expect(await runCli(['validate', 'p.yaml'], cluster)).toBe(0);
    });
  });

  it('runs an accepted policy whose rule names no operations or versions on nothing', async () => {
    const labelling = policy('no-operations', `${PODS}  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'}}]\n`);
    const io = fakeIO({ 'p.yaml': labelling, 'pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: x}\nspec: {containers: [{name: c, image: nginx}]}\n' });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout).metadata.labels).toBeUndefined();
    const hook = fakeIO({ 'p.yaml': labelling });
    expect(await runCli(['webhook-config', '--url', 'https://a.example/mutate', '--policies', 'p.yaml'], hook)).toBe(1);
    expect(hook.stderr).toContain('the policy set matches no request');
  });

  it('leaves a rule whose only version or resource is empty out of the webhook rules: it matches nothing', async () => {
    const rules = (extra: string) =>
      `  matchConstraints: {resourceRules: [${extra}{apiGroups: [batch], apiVersions: [""], operations: [CREATE], resources: [jobs]}, {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [""]}]}\n`;
    const mutation = `  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'}}]\n`;
    const io = fakeIO({ 'p.yaml': policy('empty-values', rules('{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}, ') + mutation) });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(0);
    const hook = fakeIO({ 'p.yaml': policy('empty-values', rules('{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}, ') + mutation) });
    expect(await runCli(['webhook-config', '--url', 'https://a.example/mutate', '--policies', 'p.yaml', '--json'], hook)).toBe(0);
    expect(JSON.parse(hook.stdout).webhooks[0].rules).toEqual([{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }]);
    // With nothing else, nothing to send: the usual message, not an error of Amender.
    const none = fakeIO({ 'p.yaml': policy('empty-values', rules('') + mutation) });
    expect(await runCli(['webhook-config', '--url', 'https://a.example/mutate', '--policies', 'p.yaml'], none)).toBe(1);
    expect(none.stderr).toContain('the policy set matches no request');
    expect(none.stderr).toContain('MutatingPolicy/empty-values: its matchConstraints resourceRules match no request');
    expect(none.stderr).not.toContain('internal error');
  });
});
