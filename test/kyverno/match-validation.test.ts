/**
 * match / exclude blocks Kyverno refuses when the policy is created (api/kyverno/v1
 * MatchResources.Validate, ResourceDescription.Validate, UserInfo.Validate; pkg/validation/policy
 * validateResources, kyverno/kyverno Test_Namespced_Policy): `required` findings, so that a policy set
 * refuses the policy as Kyverno does.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';

const POD = { resources: { kinds: ['Pod'] } };

function policy(rule: JsonObject, kind: 'ClusterPolicy' | 'Policy' = 'ClusterPolicy'): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind,
    metadata: kind === 'Policy' ? { name: 'p', namespace: 'customer-foo' } : { name: 'p' },
    spec: { background: false, rules: [{ name: 'r', match: { any: [POD] }, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } }, ...rule }] },
  };
}

function required(document: JsonObject): { path: string; message: string }[] {
  const result = compileKyvernoPolicy(document);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.findings.filter((f) => f.kind === 'required').map(({ path, message }) => ({ path, message }));
}

describe('match and exclude blocks Kyverno refuses', () => {
  it.each([
    ['match any and all together', { match: { any: [POD], all: [POD] } }, 'spec.rules[0].match', /can't specify any and all together/],
    ['exclude any and all together', { exclude: { any: [{ resources: { names: ['a'] } }], all: [{ resources: { names: ['b'] } }] } }, 'spec.rules[0].exclude', /can't specify any and all together/],
    // the CRD's not: {required: [any, all]} (api/kyverno/v1 MatchResources) refuses both keys, even a list left empty
    ['match any beside an empty all', { match: { any: [POD], all: [] } }, 'spec.rules[0].match', /can't specify any and all together/],
    ['match any beside match resources', { match: { any: [POD], resources: { kinds: ['Pod'] } } }, 'spec.rules[0].match.resources', /any\/all together with match resources/],
    ['exclude any beside exclude resources', { exclude: { any: [{ resources: { names: ['a'] } }], resources: { names: ['b'] } } }, 'spec.rules[0].exclude.resources', /any\/all together with exclude resources/],
    ['an empty match filter', { match: { any: [POD, {}] } }, 'spec.rules[0].match.any[1].resources', /match resources not specified/],
    ['a match filter with empty resources', { match: { all: [{ resources: {} }] } }, 'spec.rules[0].match.all[0].resources', /match resources not specified/],
    ['name and names together', { match: { any: [{ resources: { kinds: ['Pod'], name: 'a', names: ['b'] } }] } }, 'spec.rules[0].match.any[0].resources', /name and names can not be specified together/],
    ['a selector without requirements', { match: { any: [{ resources: { kinds: ['Pod'], selector: {} } }] } }, 'spec.rules[0].match.any[0].resources.selector', /requirements are not specified/],
    ['an exclude selector with empty labels', { exclude: { resources: { selector: { matchLabels: {} } } } }, 'spec.rules[0].exclude.resources.selector', /requirements are not specified/],
    // ResourceDescription.Validate parses a selector without wildcards with LabelSelectorAsSelector
    ['a selector with an invalid label value', { match: { any: [{ resources: { kinds: ['Pod'], selector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'Prod Env'] }] } } }] } }, 'spec.rules[0].match.any[0].resources.selector', /values: Invalid value: "Prod Env"/],
    ['an exclude selector with an invalid label key', { exclude: { resources: { selector: { matchLabels: { 'app name': 'web' } } } } }, 'spec.rules[0].exclude.resources.selector', /key: Invalid value: "app name"/],
    ['a ServiceAccount subject without namespace', { match: { any: [{ ...POD, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }] } }, 'spec.rules[0].match.any[0].subjects[0].namespace', /namespace is required when Kind is ServiceAccount/],
    ['a role not namespace:name', { exclude: { any: [{ roles: ['admin'] }] } }, 'spec.rules[0].exclude.any[0].roles[0]', /namespace:name format/],
  ] as const)('%s', (_, rule, path, message) => {
    const findings = required(policy(rule as unknown as JsonObject));
    expect(findings).toEqual([{ path, message: expect.stringMatching(message) }]);
  });

  it('a namespaced Policy may not filter namespaces (Test_Namespced_Policy)', () => {
    const rule = { match: { any: [{ resources: { kinds: ['Pod'], namespaces: ['customer-bar'] } }] } };
    expect(required(policy(rule, 'Policy'))).toEqual([
      { path: 'spec.rules[0].match.any[0].resources.namespaces', message: expect.stringMatching(/Filtering namespaces not allowed in namespaced policies/) },
    ]);
    expect(required(policy(rule, 'ClusterPolicy'))).toEqual([]);
  });

  it('accepts what Kyverno accepts', () => {
    for (const rule of [
      { match: { any: [POD], all: null } },
      { match: { any: [POD] }, exclude: { any: [{ resources: { names: ['a'] } }], resources: null } },
      { match: { any: [{ resources: { kinds: ['Pod'], selector: { matchLabels: { '*': '*' } } } }] } },
      { match: { any: [{ resources: { kinds: ['Pod'], selector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] } } }] } },
      // a wildcard in matchLabels skips the check; a namespaceSelector is never checked (it matches nothing at admission)
      { match: { any: [{ resources: { kinds: ['Pod'], selector: { matchLabels: { app: 'web-*', 'bad key': 'x' } } } }] } },
      { match: { any: [{ resources: { kinds: ['Pod'], namespaceSelector: { matchLabels: { 'bad key': 'x' } } } }] } },
      { match: { any: [{ resources: { kinds: ['Pod'], selector: { matchLabels: { 'app.kubernetes.io/name': 'web', tier: '' } } } }] } },
      { match: { any: [{ ...POD, subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }, { kind: 'User', name: 'u' }] }] } },
      { match: { any: [{ ...POD, roles: ['ns:admin'] }] } },
    ]) {
      expect(required(policy(rule as unknown as JsonObject)), JSON.stringify(rule)).toEqual([]);
    }
  });

  it('a policy set refuses such a policy', () => {
    const document = policy({ match: { any: [POD, {}] } });
    const set = buildPolicySet(parseDocuments('p.json', JSON.stringify(document)));
    expect(set.kyvernoPolicies.length).toBe(0);
    expect(set.problems.map((p) => p.message).join('\n')).toMatch(/match resources not specified/);
  });
});
