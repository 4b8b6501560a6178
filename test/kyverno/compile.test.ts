/** Policy validation and compilation: problems with field paths, warnings, pod-controller rules. */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy, isKyvernoPolicyDocument } from '../../src/kyverno/index.js';

const policy = (spec: JsonObject, extra: JsonObject = {}): JsonObject => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p', ...(extra.metadata as JsonObject) },
  spec,
});
const rule = (r: JsonObject): JsonObject => ({ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, ...r });
const psm = { mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } };

function problems(document: JsonValue) {
  const result = compileKyvernoPolicy(document);
  return result.ok ? [] : result.problems;
}

describe('documents', () => {
  it('recognises Kyverno policies', () => {
    expect(isKyvernoPolicyDocument(policy({ rules: [] }))).toBe(true);
    expect(isKyvernoPolicyDocument({ apiVersion: 'v1', kind: 'ConfigMap' })).toBe(false);
  });
  it('compiles a valid policy into a frozen one with a stable id', () => {
    const result = compileKyvernoPolicy(policy({ failurePolicy: 'Ignore', rules: [rule(psm)] }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.policy).toMatchObject({ id: 'ClusterPolicy/p', failurePolicy: 'Ignore', applyRules: 'All', admission: true });
    expect(Object.isFrozen(result.policy)).toBe(true);
    expect(Object.isFrozen(result.policy.rules[0].substitutable)).toBe(true);
  });
  it('a namespaced Policy gets its namespace in the id', () => {
    const result = compileKyvernoPolicy({ ...policy({ rules: [rule(psm)] }), kind: 'Policy', metadata: { name: 'p', namespace: 'team' } });
    expect(result.ok && result.policy.id).toBe('Policy/team/p');
  });
  it('never throws, whatever the input', () => {
    for (const bad of [null, 3, 'x', [], { kind: 'ClusterPolicy' }, policy({ rules: 'x' }), policy({ rules: [null, 3] })]) {
      expect(compileKyvernoPolicy(bad as JsonValue).ok).toBe(false);
    }
  });
});

describe('problems name the field', () => {
  const cases: [string, JsonObject, string, RegExp][] = [
    ['a missing match', { rules: [{ name: 'r', ...psm }] }, 'spec.rules[0].match', /is required/],
    ['duplicate rule names', { rules: [rule(psm), rule(psm)] }, 'spec.rules[1].name', /duplicate/],
    ['an unknown operator', { rules: [rule({ ...psm, preconditions: { any: [{ key: 'a', operator: 'Matches', value: 'b' }] } })] }, 'spec.rules[0].preconditions.any[0].operator', /unknown operator/],
    ['a bad failurePolicy', { failurePolicy: 'Maybe', rules: [rule(psm)] }, 'spec.failurePolicy', /Fail, Ignore/],
    ['a foreach list that is not text', { rules: [rule({ mutate: { foreach: [{ list: ['a'], patchesJson6902: '[]' }] } })] }, 'spec.rules[0].mutate.foreach[0].list', /JMESPath/],
    ['a foreach list that does not parse', { rules: [rule({ mutate: { foreach: [{ list: 'a[', patchesJson6902: '[]' }] } })] }, 'spec.rules[0].mutate.foreach[0].list', /invalid JMESPath/],
    [
      'a validate-only anchor',
      { rules: [rule({ mutate: { patchStrategicMerge: { spec: { containers: [{ 'X(name)': 'x' }] } } } })] },
      'spec.rules[0].mutate.patchStrategicMerge.spec.containers[0].X(name)',
      /validate-only anchor/,
    ],
    ['element outside foreach', { rules: [rule({ mutate: { patchStrategicMerge: { metadata: { name: '{{ element.name }}' } } } })] }, 'spec.rules[0]', /only be used inside foreach/],
    ['a bad selector', { rules: [rule({ ...psm, match: { any: [{ resources: { kinds: ['Pod'], selector: { matchExpressions: [{ key: 'a', operator: 'Has' }] } } }] } })] }, 'spec.rules[0].match.any[0].resources.selector', /operator/],
    ['a context entry of two kinds', { rules: [rule({ ...psm, context: [{ name: 'x', variable: { value: 1 }, configMap: { name: 'c' } }] })] }, 'spec.rules[0].context[0]', /exactly one/],
    // Kyverno's policy validation (validateRuleContext) of a rule's own context entries
    ['a context entry named after a predefined variable', { rules: [rule({ ...psm, context: [{ name: 'images.x', variable: { value: 1 } }] })] }, 'spec.rules[0].context[0].name', /conflicts with a pre-defined variable images/],
    ['a variable default without jmesPath', { rules: [rule({ ...psm, context: [{ name: 'x', variable: { value: 1, default: 2 } }] })] }, 'spec.rules[0].context[0].variable.default', /only when a jmesPath/],
    ['a configMap entry without namespace', { rules: [rule({ ...psm, context: [{ name: 'x', configMap: { name: 'c' } }] })] }, 'spec.rules[0].context[0].configMap.namespace', /namespace is required/],
    // Kyverno's policy validation (Test_ValidateJSON6902): a patch text without variables is checked at load
    ['an unknown JSON-patch op', { rules: [rule({ mutate: { patchesJson6902: '- path: "/metadata/labels/img"\n  op: addition\n  value: "nginx"' } })] }, 'spec.rules[0].mutate.patchesJson6902', /unexpected kind: addition/],
    ['a JSON-patch add without value', { rules: [rule({ mutate: { patchesJson6902: '- op: add\n  path: /metadata/labels/img' } })] }, 'spec.rules[0].mutate.patchesJson6902', /has no value/],
    ['a JSON-patch path without /', { rules: [rule({ mutate: { patchesJson6902: '[{"op": "remove", "path": "metadata/labels/img"}]' } })] }, 'spec.rules[0].mutate.patchesJson6902', /forward slash/],
    ['a JSON patch that is not a list', { rules: [rule({ mutate: { patchesJson6902: 'op: add' } })] }, 'spec.rules[0].mutate.patchesJson6902', /list of operations/],
    [
      'patches beside a nested foreach',
      { rules: [rule({ mutate: { foreach: [{ list: 'a', patchesJson6902: '[]', foreach: [{ list: 'b', patchesJson6902: '[]' }] }] } })] },
      'spec.rules[0].mutate.foreach[0]',
      /nested foreach/,
    ],
  ];
  for (const [what, spec, path, message] of cases) {
    it(what, () => {
      const found = problems(policy(spec));
      expect(found.map((p) => p.path)).toContain(path);
      expect(found.find((p) => p.path === path)?.message).toMatch(message);
    });
  }
});

describe('JSON-patch texts at load', () => {
  it('a valid text, or one with variables, compiles (variables are checked when they are known)', () => {
    expect(problems(policy({ rules: [rule({ mutate: { patchesJson6902: '- path: "/metadata/labels/img"\n  op: add\n  value: "nginx"' } })] }))).toEqual([]);
    expect(problems(policy({ rules: [rule({ mutate: { patchesJson6902: '- op: {{ request.object.metadata.name }}\n  path: /x' } })] }))).toEqual([]);
  });
});

describe('warnings', () => {
  it('both patch kinds: strategic merge wins', () => {
    const result = compileKyvernoPolicy(policy({ rules: [rule({ mutate: { patchStrategicMerge: { a: 1 }, patchesJson6902: '[]' } })] }));
    expect(result.ok).toBe(true);
    expect(result.warnings[0].message).toMatch(/patchStrategicMerge is applied/);
  });
  it('only mutate rules are kept', () => {
    const result = compileKyvernoPolicy(policy({ rules: [{ name: 'v', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate: {} }, rule(psm)] }));
    expect(result.ok && result.policy.rules.map((r) => r.name)).toEqual(['r', 'autogen-r', 'autogen-cronjob-r']);
  });
});

describe('pod-controller rules', () => {
  const names = (document: JsonObject) => {
    const result = compileKyvernoPolicy(document);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    return result.policy.rules.map((r) => r.name);
  };
  it('are generated for Pod rules, after the declared ones', () => {
    expect(names(policy({ rules: [rule(psm), { ...rule(psm), name: 's' }] }))).toEqual(['r', 's', 'autogen-r', 'autogen-cronjob-r', 'autogen-s', 'autogen-cronjob-s']);
  });
  it('move the overlay and request.object under the template', () => {
    const result = compileKyvernoPolicy(
      policy({ rules: [rule({ mutate: { patchStrategicMerge: { metadata: { labels: { n: '{{ request.object.metadata.name }}' } } } } })] }),
    );
    if (!result.ok) throw new Error('no');
    const [, auto, cron] = result.policy.rules;
    expect(auto.substitutable.mutate).toEqual({
      patchStrategicMerge: { spec: { template: { metadata: { labels: { n: '{{ request.object.spec.template.metadata.name }}' } } } } },
    });
    expect(cron.substitutable.mutate).toEqual({
      patchStrategicMerge: {
        spec: { jobTemplate: { spec: { template: { metadata: { labels: { n: '{{ request.object.spec.jobTemplate.spec.template.metadata.name }}' } } } } } },
      },
    });
    expect(auto.match.any?.[0].kinds?.map((k) => k.kind)).toEqual(['DaemonSet', 'Deployment', 'Job', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);
    expect(cron.match.any?.[0].kinds?.map((k) => k.kind)).toEqual(['CronJob']);
  });
  it('honour the annotation and are disabled by JSON patches, names and mixed kinds', () => {
    expect(names(policy({ rules: [rule(psm)] }, { metadata: { annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } } }))).toEqual(['r']);
    expect(names(policy({ rules: [rule(psm)] }, { metadata: { annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'Deployment' } } }))).toEqual(['r', 'autogen-r']);
    expect(names(policy({ rules: [rule(psm), { ...rule({ mutate: { patchesJson6902: '[]' } }), name: 'j' }] }))).toEqual(['r', 'j']);
    expect(names(policy({ rules: [{ ...rule(psm), match: { any: [{ resources: { kinds: ['Pod'], names: ['x'] } }] } }] }))).toEqual(['r']);
    expect(names(policy({ rules: [{ ...rule(psm), match: { any: [{ resources: { kinds: ['Pod', 'Deployment'] } }] } }] }))).toEqual(['r']);
  });
});
