/**
 * Autogen for MutatingPolicies (src/mpol's exports): expressions rewritten as Kyverno's
 * convertPodToTemplateExpression rewrites them (cases transcribed from Kyverno's autogen_test.go, compared
 * without whitespace as Kyverno's test compares them), which policies qualify, and a rewritten metadata
 * mutation applied end to end to a Deployment.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import type { AdmissionRequest } from '../../src/admission/index.js';
import { compilePolicy, dispatch, type BoundPolicy } from '../../src/map/index.js';
import { tableEquivalence } from '../../src/map/equivalence.js';
import { canAutogen, convertPodExpression, loadMutatingPolicy } from '../../src/mpol/index.js';
import { SchemaRegistry } from '../../src/schema/index.js';
import { fakeIO } from '../cli/fake-io.js';
import { DEPLOYMENT } from './policies.js';

const squash = (s: string) => s.replace(/\s+/g, '');

const CASES: [string, 'defaults' | 'cronjobs', string, string][] = [
  [
    'containers of a Deployment',
    'defaults',
    `Object{ spec: Object.spec{ containers: object.spec.containers.map(container, Object.spec.containers{ name: container.name, securityContext: Object.spec.containers.securityContext{ allowPrivilegeEscalation: false } }) } }`,
    `Object{spec: Object.spec{ template: Object.spec.template{ spec: Object.spec.template.spec{ containers: object.spec.template.spec.containers.map(container, Object.spec.template.spec.containers{ name: container.name, securityContext: Object.spec.template.spec.containers.securityContext{ allowPrivilegeEscalation: false } }) } }}}`,
  ],
  [
    'containers of a CronJob',
    'cronjobs',
    `Object{ spec: Object.spec{ containers: [Object.spec.containers{ name: "nginx" }] } }`,
    `Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{ spec: Object.spec.jobTemplate.spec.template.spec{ containers: [Object.spec.jobTemplate.spec.template.spec.containers{ name: "nginx" }] } }}}}}`,
  ],
  ['namespaceObject is left alone', 'defaults', `'istio.io/dataplane-mode' in namespaceObject.metadata.labels`, `'istio.io/dataplane-mode' in namespaceObject.metadata.labels`],
  ['namespaceObject spec is left alone', 'cronjobs', 'namespaceObject.spec.containers', 'namespaceObject.spec.containers'],
  ['oldObject spec is rewritten', 'defaults', 'oldObject.spec.containers', 'oldObject.spec.template.spec.containers'],
  [
    'labels without containers',
    'defaults',
    `Object{ metadata: Object.metadata{ labels: Object.metadata.labels{ foo: "bar" } } }`,
    `Object{spec: Object.spec{template: Object.spec.template{ metadata: Object.metadata{ labels: Object.spec.template.metadata.labels{ foo: "bar" } } }}}`,
  ],
  [
    'whitespace between Object and its brace',
    'defaults',
    `Object {\n  spec: Object.spec {\n    automountServiceAccountToken: false,\n  }\n}`,
    `Object{spec: Object.spec{template: Object.spec.template{ spec: Object.spec.template.spec{ automountServiceAccountToken: false, } }}}`,
  ],
  ['empty expression', 'defaults', '', ''],
];

describe('MutatingPolicy autogen', () => {
  for (const [name, group, input, expected] of CASES) {
    it(`rewrites as Kyverno does: ${name}`, () => {
      expect(squash(convertPodExpression(input, group))).toBe(squash(expected));
    });
  }

  it('applies only to policies that match pods alone, without object selector, exclusions or names', () => {
    const rule = { apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'], resourceNames: [] as string[], scope: '*' };
    const match = { namespaceSelector: {}, objectSelector: {}, resourceRules: [rule], excludeResourceRules: [], matchPolicy: 'Equivalent' };
    expect(canAutogen(match)).toBe(true);
    expect(canAutogen({ ...match, objectSelector: { matchLabels: { a: 'b' } } })).toBe(false);
    expect(canAutogen({ ...match, resourceRules: [{ ...rule, resources: ['pods', 'services'] }] })).toBe(false);
    expect(canAutogen({ ...match, resourceRules: [{ ...rule, resourceNames: ['x'] }] })).toBe(false);
    expect(canAutogen({ ...match, excludeResourceRules: [rule] })).toBe(false);
  });

  // Kyverno rewrites `Object.metadata.labels` but not the `Object.metadata` around it, so the variant's
  // type names no longer follow the field path and Kyverno's patcher (CheckTypeNamesMatchFieldPathNames)
  // fails the request; Amender's engine runs the same check and fails it the same way.
  it('fails a metadata mutation on a Deployment as Kyverno does (rewritten type names off the field path)', async () => {
    const policy = `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: labels}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  matchConditions: [{name: has labels, expression: 'has(object.metadata.labels)'}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: Object.metadata.labels{team: "shop"}}}'}
`;
    const io = fakeIO({ 'p.yaml': policy, 'd.yaml': DEPLOYMENT });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'd.yaml'], io)).toBe(1);
    expect(io.stderr).toContain('type mismatch: unexpected type name "Object.metadata", expected "Object.spec.template.metadata"');
    // The pod policy itself labels pods.
    const pods = fakeIO({ 'p.yaml': policy, 'pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: web}}\nspec: {containers: [{name: c, image: nginx}]}\n' });
    expect(await runCli(['apply', '--policies', 'p.yaml', '--resource', 'pod.yaml'], pods)).toBe(0);
    expect(parseYaml(pods.stdout).metadata.labels).toEqual({ app: 'web', team: 'shop' });
  });

  // Kyverno's CreateMatchConstraints (pkg/cel/autogen/match.go) builds the variants' MatchResources from
  // the targets, the operations and the namespaceSelector only: no matchPolicy (nil, exact matching).
  describe('the variants carry no matchPolicy (exact matching), whatever the policy says', () => {
    const doc = parseYaml(`apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: equivalent}
spec:
  matchConstraints:
    matchPolicy: Equivalent
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration: {expression: 'Object{spec: Object.spec{priorityClassName: "high"}}'}
`);

    it('loads the policy with its own matchPolicy and the variants with none', () => {
      const loaded = loadMutatingPolicy(doc);
      expect(loaded.errors).toEqual([]);
      expect(loaded.policies.map((p) => [p.autogen ?? 'pods', p.policy.matchConstraints?.matchPolicy])).toEqual([
        ['pods', 'Equivalent'],
        ['cronjobs', null],
        ['defaults', null],
      ]);
    });

    it('does not run a variant on a resource only equivalent to a controller its rules name', () => {
      const loaded = loadMutatingPolicy(doc);
      const bound: BoundPolicy[] = loaded.policies.map((p) => ({
        policy: p.policy,
        kyverno: { kind: 'MutatingPolicy', name: 'equivalent', ...(p.autogen ? { autogen: p.autogen } : {}) },
        bindings: [{ name: '', policyName: p.policy.name }],
        program: compilePolicy(p.policy, { schemas: SchemaRegistry.builtin() }, { dialect: 'kyverno' }).program,
      }));
      const deployment = (apiVersion: string) => parseYaml(DEPLOYMENT.replace(/^apiVersion: .*$/m, `apiVersion: ${apiVersion}`));
      const request = (group: string, version: string): AdmissionRequest => ({
        uid: 'u',
        kind: { group, version, kind: 'Deployment' },
        resource: { group, version, resource: 'deployments' },
        namespace: 'default',
        operation: 'CREATE',
        userInfo: { username: 'admin' },
        object: deployment(`${group}/${version}`),
        oldObject: null,
      });
      const ctx: Parameters<typeof dispatch>[2] = {
        params: { scopeOf: () => undefined, objects: () => [] },
        namespaces: () => undefined,
        equivalence: tableEquivalence([
          { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, subResource: '', kind: { group: 'apps', version: 'v1', kind: 'Deployment' } },
          { resource: { group: 'extensions', version: 'v1beta1', resource: 'deployments' }, subResource: '', kind: { group: 'extensions', version: 'v1beta1', kind: 'Deployment' } },
        ]),
      };
      // The rules' own version: the variant runs.
      const own = dispatch(bound, request('apps', 'v1'), ctx);
      expect(own.traces?.map((t) => t.result)).toEqual(['mutated']);
      // An equivalent version the rules do not name: nothing matches, exactly.
      const equivalent = dispatch(bound, request('extensions', 'v1beta1'), ctx);
      expect(equivalent.traces).toEqual([]);
    });
  });
});
