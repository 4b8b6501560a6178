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

  it('still refuses an unknown operation or scope in a rule whose shape is not required, in that order', async () => {
    const spec = '  matchConstraints: {resourceRules: [{operations: [CREATE, PATCH], scope: Everywhere}]}\n';
    const io = fakeIO({ 'p.yaml': policy('bad-values', spec) });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    const rule = 'MutatingPolicy/bad-values: spec.matchConstraints.resourceRules[0]';
    const operation = `${rule}.operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`;
    const scope = `${rule}.scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"`;
    expect(io.stderr).toContain(operation);
    expect(io.stderr).toContain(scope);
    expect(io.stderr.indexOf(operation)).toBeLessThan(io.stderr.indexOf(scope));
    // No groups, versions or resources are required of it.
    expect(io.stderr).not.toMatch(/Required value/);
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
