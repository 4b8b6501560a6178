/**
 * spec.auditAnnotations of a Kyverno MutatingPolicy, as Kyverno's compiler and policy evaluation treat
 * them (pkg/cel/compiler CompileAuditAnnotation, pkg/cel/policies/mpol/compiler Evaluate): compiled with
 * the policy (a result type other than exactly string or null refuses it), evaluated on the mutated object
 * after the mutations, and an evaluation error, or a value that is not a string, fails the policy (its
 * failurePolicy decides). The values themselves feed Kyverno's reports only.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';

const policy = (name: string, audits: string, failurePolicy = 'Fail') => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: ${name}}
spec:
  failurePolicy: ${failurePolicy}
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  auditAnnotations: ${audits}
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}'}}]
`;

const CONFIGMAP = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: x}\ndata: {k: v}\n';

describe('Kyverno MutatingPolicy auditAnnotations', () => {
  it('refuses a policy whose audit annotation is not typed string or null (a field of object is dyn)', async () => {
    const io = fakeIO({ 'p.yaml': policy('dyn', `[{key: name, valueExpression: 'object.metadata.name'}, {key: num, valueExpression: '1'}]`) });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('MutatingPolicy/dyn: spec.auditAnnotations[0].valueExpression: Invalid value: "object.metadata.name": output is expected to be either of type string or null_type');
    expect(io.stderr).toContain('spec.auditAnnotations[1].valueExpression: Invalid value: "1"');
  });

  it('refuses one that does not compile', async () => {
    const io = fakeIO({ 'p.yaml': policy('bad', `[{key: k, valueExpression: 'string(nope)'}]`) });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    expect(io.stderr).toContain("MutatingPolicy/bad: spec.auditAnnotations[0].valueExpression: Invalid value: \"string(nope)\"");
  });

  it('applies the mutations when every audit annotation evaluates to a string, on the mutated object', async () => {
    const audits = `[{key: name, valueExpression: '"cm/" + string(object.metadata.name)'}, {key: label, valueExpression: 'string(object.metadata.labels["a"])'}]`;
    const io = fakeIO({ 'p.yaml': policy('ok', audits), 'cm.yaml': CONFIGMAP });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], io)).toBe(0);
    expect(parseYaml(io.stdout).metadata.labels).toEqual({ a: 'b' });
  });

  it('fails the policy when an audit annotation fails to evaluate or is null: denied under Fail, nothing applied under Ignore', async () => {
    const failing = `[{key: missing, valueExpression: 'string(object.metadata.annotations["nope"])'}]`;
    const fail = fakeIO({ 'p.yaml': policy('audit-fail', failing), 'cm.yaml': CONFIGMAP });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], fail)).not.toBe(0);
    expect(fail.stderr).toContain('policy "audit-fail" denied request');
    expect(fail.stderr).toContain('failed to evaluate auditAnnotation "missing"');
    const nil = fakeIO({ 'p.yaml': policy('audit-null', `[{key: nothing, valueExpression: 'null'}]`), 'cm.yaml': CONFIGMAP });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], nil)).not.toBe(0);
    expect(nil.stderr).toContain("type conversion error from 'null_type' to 'string'");
    const ignore = fakeIO({ 'p.yaml': policy('audit-ignore', failing, 'Ignore'), 'cm.yaml': CONFIGMAP });
    // The request goes through unchanged; amender apply still exits 1 on the error result, as kyverno apply does.
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'cm.yaml'], ignore)).toBe(1);
    expect(parseYaml(ignore.stdout).metadata.labels).toBeUndefined();
  });
});

describe("Kyverno's compiler cases for auditAnnotations (compiler_test.go TestCompile)", () => {
  it('accepts string concatenations with a field of object or with a variable, without a problem', async () => {
    const io = fakeIO({
      'p.yaml': [
        policy('valid-audit', `[{key: resource-name, valueExpression: "'name/' + object.metadata.name"}, {key: static, valueExpression: "'value'"}]`),
        policy('audit-vars', `[{key: r, valueExpression: "'resource/' + string(variables.resourceName)"}]`).replace('  auditAnnotations', '  variables: [{name: resourceName, expression: object.metadata.name}]\n  auditAnnotations'),
      ].join('---\n'),
    });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(0);
    expect(io.stderr).toBe('');
  });

  it('refuses an auditAnnotation that is not CEL', async () => {
    const io = fakeIO({ 'p.yaml': policy('invalid-audit', `[{key: bad, valueExpression: 'this is not a cel'}]`) });
    expect(await runCli(['validate', 'p.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('MutatingPolicy/invalid-audit: spec.auditAnnotations[0].valueExpression: Invalid value: "this is not a cel"');
  });
});
