/**
 * resourceNames and generateName: Kyverno's matcher (pkg/cel/matching/matcher.go matchesResourceRules /
 * matchesGeneratedName, matcher_test.go "match using generateName prefix") matches a request without a
 * name (a CREATE relying on generateName) when its object's generateName starts with a listed name, in
 * resourceRules and excludeResourceRules alike; a named request is compared by name. kube-apiserver's
 * matcher compares the empty name only, so a MutatingAdmissionPolicy with the same rule does not match.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';

const LABEL = `  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"named": "yes"}}}'}}]\n`;
const rule = (names: string[]) => `{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps], resourceNames: [${names.join(', ')}]}`;
const mpol = (match: string) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: named}
spec:
  matchConstraints: {${match}}
${LABEL}`;
const configMap = (meta: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {${meta}, namespace: default}\ndata: {a: b}\n`;

async function labels(policies: string, resource: string): Promise<unknown> {
  const io = fakeIO({ 'p.yaml': policies, 'r.yaml': resource });
  expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'r.yaml'], io)).toBe(0);
  return parseYaml(io.stdout).metadata.labels;
}

describe('MutatingPolicy resourceNames match a nameless request by its generateName prefix', () => {
  it('matches when generateName starts with a listed name', async () => {
    expect(await labels(mpol(`resourceRules: [${rule(['other', 'web-'])}]`), configMap('generateName: web-'))).toEqual({ named: 'yes' });
    expect(await labels(mpol(`resourceRules: [${rule(['web'])}]`), configMap('generateName: web-abc-'))).toEqual({ named: 'yes' });
  });

  it('does not match when no listed name is a prefix of generateName, or there is neither name nor generateName', async () => {
    expect(await labels(mpol(`resourceRules: [${rule(['web-abc'])}]`), configMap('generateName: web-'))).toBeUndefined();
    expect(await labels(mpol(`resourceRules: [${rule(['web-'])}]`), configMap('labels: {app: web}'))).toEqual({ app: 'web' });
  });

  it('compares a named request by its name only', async () => {
    expect(await labels(mpol(`resourceRules: [${rule(['web-'])}]`), configMap('name: web-1, generateName: web-'))).toBeUndefined();
    expect(await labels(mpol(`resourceRules: [${rule(['web-1'])}]`), configMap('name: web-1'))).toEqual({ named: 'yes' });
  });

  it('excludes by generateName prefix too', async () => {
    const match = `resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}], excludeResourceRules: [${rule(['web-'])}]`;
    expect(await labels(mpol(match), configMap('generateName: web-'))).toBeUndefined();
    expect(await labels(mpol(match), configMap('generateName: api-'))).toEqual({ named: 'yes' });
  });

  it('leaves a MutatingAdmissionPolicy as kube-apiserver matches it: the empty name is not listed', async () => {
    const map = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: named}
spec:
  matchConstraints: {resourceRules: [${rule(['web-'])}]}
  reinvocationPolicy: Never
${LABEL}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: named}
spec: {policyName: named}
`;
    expect(await labels(map, configMap('generateName: web-'))).toBeUndefined();
    expect(await labels(map, configMap('name: web-'))).toEqual({ named: 'yes' });
  });
});
