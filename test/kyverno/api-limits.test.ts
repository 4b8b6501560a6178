/**
 * What Kyverno's API types refuse (src/kyverno/validation/api-limits.ts): api/kyverno/v1/utils.go
 * ValidatePolicyName (and its clusterpolicy_test.go Test_ClusterPolicy_Name), ValidateAutogenAnnotation,
 * the CRD's `maxLength: 63` on a rule name (api/kyverno/v1/rule_types.go), Spec.Validate's forbidden fields,
 * and ValidateMutationRuleTargetNamespace (the cases of rule_test.go
 * Test_Validate_NamespacedPolicy_MutateRuleTargetNamespace, in a Policy of namespace amritapuri).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';

const policy = (name: string, ruleName = 'r', annotations?: JsonObject): JsonObject => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: {
    rules: [{ name: ruleName, match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } }],
  },
});

function problems(document: JsonObject) {
  const result = compileKyvernoPolicy(document);
  return result.ok ? [] : result.problems;
}

describe('Kyverno API limits', () => {
  it('a policy name of more than 63 bytes', () => {
    const upstream = 'this-is-a-way-too-long-policy-name-that-should-trigger-an-error-when-calling-the-policy-validation-method';
    expect(problems(policy(upstream))).toEqual([{ path: 'metadata.name', message: 'Too long: may not be more than 63 bytes' }]);
    expect(problems({ ...policy('p'), kind: 'Policy', metadata: { name: upstream, namespace: 'abcd' } })).toEqual([
      { path: 'metadata.name', message: 'Too long: may not be more than 63 bytes' },
    ]);
    expect(problems(policy('p'.repeat(63)))).toEqual([]);
    // bytes, as Go's len counts them: 32 two-byte characters are 64 bytes
    expect(problems(policy('é'.repeat(32)))).toHaveLength(1);
  });
  it('a rule name of more than 63 characters', () => {
    expect(problems(policy('p', 'r'.repeat(64)))).toEqual([{ path: 'spec.rules[0].name', message: 'Too long: may not be more than 63 characters' }]);
    expect(problems(policy('p', 'r'.repeat(63)))).toEqual([]);
    // characters, as OpenAPI's maxLength counts them
    expect(problems(policy('p', 'é'.repeat(63)))).toEqual([]);
  });
  it("the autogen annotation 'all'", () => {
    expect(problems(policy('p', 'r', { 'pod-policies.kyverno.io/autogen-controllers': 'all' }))).toEqual([
      { path: 'metadata.annotations', message: "Autogen annotation does not support 'all' anymore, remove the annotation or set it to a valid value" },
    ]);
    expect(problems(policy('p', 'r', { 'pod-policies.kyverno.io/autogen-controllers': 'Deployment,CronJob' }))).toEqual([]);
  });
});

describe('fields Kyverno forbids', () => {
  it('the deprecated generateExistingOnPolicyUpdate, whatever its value', () => {
    const document = policy('p');
    (document.spec as JsonObject).generateExistingOnPolicyUpdate = false;
    expect(problems(document)).toEqual([
      { path: 'spec.generateExistingOnPolicyUpdate', message: 'remove the deprecated field and use spec.generate[*].generateExisting instead' },
    ]);
  });
  it('validationFailureActionOverrides in a namespaced Policy', () => {
    const spec = { ...(policy('p').spec as JsonObject), validationFailureActionOverrides: [{ action: 'Audit', namespaces: ['team'] }] };
    expect(problems({ ...policy('p'), kind: 'Policy', metadata: { name: 'p', namespace: 'team' }, spec })).toEqual([
      { path: 'spec.validationFailureActionOverrides', message: 'Use of validationFailureActionOverrides is supported only with ClusterPolicy' },
    ]);
    expect(problems({ ...policy('p'), spec })).toEqual([]);
  });
});

describe('spec fields of the wrong type', () => {
  const withSpec = (extra: JsonObject) => {
    const document = policy('p');
    Object.assign(document.spec as JsonObject, extra);
    return problems(document);
  };
  it('a boolean written as a string, a failure action outside the enum', () => {
    expect(withSpec({ background: 'false' })).toEqual([{ path: 'spec.background', message: 'must be a boolean' }]);
    expect(withSpec({ mutateExistingOnPolicyUpdate: 'true', useServerSideApply: 1 })).toEqual([
      { path: 'spec.mutateExistingOnPolicyUpdate', message: 'must be a boolean' },
      { path: 'spec.useServerSideApply', message: 'must be a boolean' },
    ]);
    expect(withSpec({ validationFailureAction: 'Warn' })).toEqual([{ path: 'spec.validationFailureAction', message: 'must be one of audit, enforce, Audit, Enforce' }]);
  });
  it('the right types pass', () => {
    expect(withSpec({ background: false, schemaValidation: true, validationFailureAction: 'audit', generateExisting: false })).toEqual([]);
  });
});

describe('Test_Validate_NamespacedPolicy_MutateRuleTargetNamespace (upstream cases)', () => {
  const namespaced = (targetNamespaces: string[]): JsonObject => ({
    apiVersion: 'kyverno.io/v1',
    kind: 'Policy',
    metadata: { name: 'p', namespace: 'amritapuri' },
    spec: {
      rules: [
        {
          name: 'auto-rollout-on-config-change',
          match: { resources: { kinds: ['ConfigMap'] } },
          mutate: {
            targets: targetNamespaces.map((namespace, i) => ({ apiVersion: i === 0 ? 'apps/v1' : 'v1', kind: i === 0 ? 'Deployment' : 'Service', namespace })),
            patchStrategicMerge: { metadata: { annotations: { 'kyverno/tls-changed:': 'true' } } },
          },
        },
      ],
    },
  });
  const message = 'This field can be ignored or should have value of the namespace where the policy is being created';
  it('Invalid mutate rule target namespace', () => {
    // (the policy is also reported for its mutate-existing rule, which no webhook runs)
    expect(problems(namespaced(['maddy', 'praddy'])).filter((p) => p.message === message)).toEqual([
      { path: 'spec.rules[0].targets[0].namespace', message },
      { path: 'spec.rules[0].targets[1].namespace', message },
    ]);
  });
  it('Valid mutate rule target namespace', () => {
    const result = compileKyvernoPolicy(namespaced(['amritapuri', 'amritapuri']));
    expect(result.ok).toBe(true);
  });
});
