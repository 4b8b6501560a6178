/**
 * A list in a policy's field error is printed as its JSON, as field.Error's ErrorBody prints a composite
 * value since Kubernetes 1.34 (apimachinery c58e197e "Nicer value rendering in API errors":
 * json.Marshal of the []string): `Invalid value: ["*","apps"]: if '*' is present, ...`.
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';

function problems(rule: Record<string, unknown>): string[] {
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: 'p' },
    spec: {
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], ...rule }] },
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }],
      reinvocationPolicy: 'Never',
    },
  };
  return buildPolicySet([parseDocuments('p.json', JSON.stringify([policy]))]).problems.map((p) => `${p.path}: ${p.message}`);
}

const AT = 'spec.matchConstraints.resourceRules[0]';

describe('a list value in a field error', () => {
  it('is its JSON', () => {
    expect(problems({ apiGroups: ['*', 'apps'] })).toContain(`${AT}.apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups`);
    expect(problems({ resources: ['*/*', 'pods'] })).toContain(`${AT}.resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`);
    expect(problems({ operations: ['*', 'CREATE'] })).toContain(`${AT}.operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`);
  });
});
