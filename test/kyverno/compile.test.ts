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
    [
      'patches beside a nested foreach',
      { rules: [rule({ mutate: { foreach: [{ list: 'a', patchesJson6902: '[]', foreach: [{ list: 'b', patchesJson6902: '[]' }] }] } })] },
      'spec.rules[0].mutate.foreach[0]',
      /nested foreach/,
    ],
    ['admission off for a mutate policy', { admission: false, rules: [rule(psm)] }, 'spec.admission', /only allowed with validation policies/],
    ['admission and background both off', { admission: false, background: false, rules: [rule(psm)] }, 'spec.admission', /both admission and background/],
    ['a variable in match', { rules: [rule({ ...psm, match: { any: [{ resources: { kinds: ['Pod'], names: ['{{ request.object.metadata.name }}'] } }] } })] }, 'spec.rules[0].match', /should not have variables in match section/],
    ['a variable in exclude', { rules: [rule({ ...psm, exclude: { any: [{ resources: { namespaces: ['{{request.namespace}}'] } }] } })] }, 'spec.rules[0].exclude', /should not have variables in exclude section/],
    ['a label that is not a string', { rules: [rule({ mutate: { patchStrategicMerge: { metadata: { labels: { replicas: 3 } } } } })] }, 'spec.rules[0].mutate', /supports only string values/],
    [
      'a null template annotation in a foreach overlay',
      { rules: [rule({ mutate: { foreach: [{ list: 'request.object.spec.containers', patchStrategicMerge: { spec: { template: { metadata: { annotations: { a: null } } } } } }] } })] },
      'spec.rules[0].mutate',
      /supports only string values/,
    ],
    ['celPreconditions on a mutate rule', { rules: [rule({ ...psm, celPreconditions: [{ name: 'c', expression: 'true' }] })] }, 'spec.rules[0].celPreconditions', /only be used with validate.cel/],
  ];
  for (const [what, spec, path, message] of cases) {
    it(what, () => {
      const found = problems(policy(spec));
      expect(found.map((p) => p.path)).toContain(path);
      expect(found.find((p) => p.path === path)?.message).toMatch(message);
    });
  }
});

describe('a top-level JSON patch Kyverno would not decode when the policy is created', () => {
  const findings = (patch: string) => {
    const result = compileKyvernoPolicy(policy({ rules: [rule({ mutate: { patchesJson6902: patch } })] }));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    return result.findings.filter((f) => f.kind === 'required');
  };
  it('is a required finding (a policy set refuses the policy; run directly, the rule fails when reached)', () => {
    expect(findings('- op: merge\n  path: /metadata/labels/x\n  value: y')[0]).toMatchObject({ path: 'spec.rules[0].mutate.patchesJson6902', message: /unsupported operation/ });
    expect(findings('- op: add\n  path: metadata/labels/x\n  value: y')[0]?.message).toMatch(/JSON pointer|forward slash/);
    expect(findings('- op: add\n  path: /metadata/labels/x')[0]?.message).toMatch(/value/);
    // Kyverno's Test_ValidateJSON6902
    expect(findings('- path: "/metadata/labels/img"\n  op: addition\n  value: "nginx"')[0]?.message).toMatch(/unsupported operation|addition/);
    expect(findings('[{"op": "remove", "path": "metadata/labels/img"}]')[0]?.message).toMatch(/JSON pointer|forward slash/);
    expect(findings('op: add')[0]?.path).toBe('spec.rules[0].mutate.patchesJson6902');
  });
  it('a test op needs its value too (validateJSONPatch: only remove, move and copy go without)', () => {
    expect(findings('- op: test\n  path: /metadata/name')).toEqual([
      expect.objectContaining({ path: 'spec.rules[0].mutate.patchesJson6902', message: expect.stringMatching(/^invalid value: spec.rules\[0\]: operation, missing value field/) }),
    ]);
    expect(findings('- op: test\n  path: /metadata/name\n  value: null')).toEqual([]);
  });
  it('variables stand in as words, in paths and values', () => {
    expect(findings('- op: add\n  path: /metadata/labels/{{ request.object.metadata.name }}\n  value: {{ request.object.metadata.name }}')).toEqual([]);
    expect(findings('[{"op": "replace", "path": "/metadata/name", "value": "x"}]')).toEqual([]);
  });
  it('escaped variables stay as written, as in Kyverno (ReplaceAllVars keeps `\\{{`)', () => {
    // `a\{{ b: c }}` is no YAML scalar (a mapping inside a plain scalar); a word would be.
    expect(findings('- op: add\n  path: /metadata/labels/x\n  value: a\\{{ b: c }}')[0]?.message).toMatch(/neither valid JSON nor valid YAML/);
    expect(findings('- op: add\n  path: /metadata/labels/x\n  value: a{{ b: c }}')).toEqual([]);
  });
});

describe('accepted as Kyverno accepts them', () => {
  const validateOnly = { name: 'v', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate: { deny: {} } };
  it('admission off for a policy of validate rules only (they run in the background)', () => {
    expect(compileKyvernoPolicy(policy({ admission: false, rules: [validateOnly] })).ok).toBe(true);
  });
  it('celPreconditions beside a foreach, which Kyverno does not check and ignores', () => {
    const foreach = { mutate: { foreach: [{ list: 'request.object.spec.containers', patchStrategicMerge: { metadata: { labels: { a: 'b' } } } }] } };
    expect(compileKyvernoPolicy(policy({ rules: [rule({ ...foreach, celPreconditions: [{ name: 'c', expression: 'true' }] })] })).ok).toBe(true);
  });
});

describe('background mode (spec.background, true unless false): nothing about the requester', () => {
  const user = rule({ mutate: { patchStrategicMerge: { metadata: { labels: { by: '{{ request.userInfo.username }}' } } } } });
  it('refuses a variable about the requester', () => {
    expect(problems(policy({ rules: [user] }))).toEqual([
      { path: 'spec.background', message: expect.stringMatching(/^only select variables are allowed in background mode.*variable \{\{ request\.userInfo\.username \}\} is not allowed$/) },
    ]);
    const sa = rule({ mutate: { patchStrategicMerge: { metadata: { labels: { sa: '{{ serviceAccountName }}' } } } } });
    expect(problems(policy({ rules: [sa] }))[0]?.path).toBe('spec.background');
  });
  it('refuses matching or excluding on subjects, roles or cluster roles', () => {
    const subjects = rule({ ...psm, match: { any: [{ resources: { kinds: ['Pod'] } }, { resources: { kinds: ['Pod'] }, subjects: [{ kind: 'User', name: 'bob' }] }] } });
    expect(problems(policy({ rules: [subjects] }))).toEqual([
      { path: 'spec.rules[0].match.any[1].subjects', message: expect.stringMatching(/background mode.*invalid variable used at path: spec\/rules\[0\]\/match\/any\[1\]\/subjects$/) },
    ]);
    const roles = rule({ ...psm, exclude: { all: [{ clusterRoles: ['admin'] }] } });
    expect(problems(policy({ rules: [roles] }))[0]?.path).toBe('spec.rules[0].exclude.all[0].clusterRoles');
  });
  it('accepts them with background: false, and other variables in any case', () => {
    expect(compileKyvernoPolicy(policy({ background: false, rules: [user] })).ok).toBe(true);
    const object = rule({ mutate: { patchStrategicMerge: { metadata: { labels: { sa: '{{ request.object.spec.serviceAccountName }}' } } } } });
    expect(compileKyvernoPolicy(policy({ rules: [object] })).ok).toBe(true);
  });
});

describe('a rule that selects every kind (kinds: ["*"]), as Kyverno validates it', () => {
  const every = (r: JsonObject, kinds: JsonValue[] = ['*']): JsonObject => ({ name: 'w', match: { any: [{ resources: { kinds } }] }, ...r });
  const metadataOverlay = { mutate: { patchStrategicMerge: { metadata: { annotations: { a: 'b' } } } } };
  it('is refused in background mode', () => {
    expect(problems(policy({ rules: [every(metadataOverlay)] }))).toEqual([
      { path: 'spec.rules[0].match.any[0].resources.kinds', message: expect.stringMatching(/^wildcard policy not allowed in background mode\. Set spec\.background=false/) },
    ]);
    const excluded = { ...rule(psm), exclude: { resources: { kinds: ['*'] } } };
    expect(problems(policy({ rules: [excluded] }))[0]?.path).toBe('spec.rules[0].exclude.resources.kinds');
  });
  it('names no other kind beside it', () => {
    expect(problems(policy({ background: false, rules: [every(metadataOverlay, ['*', 'Pod'])] }))[0]?.message).toBe('wildcard policy can not deal with more than one kind');
  });
  it('changes nothing but metadata', () => {
    const spec = every({ mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } }, spec: { x: 1 } } } });
    expect(problems(policy({ background: false, rules: [spec] }))[0]?.message).toMatch(/^policy can only deal with the metadata field of the resource/);
    const jsonSpec = every({ mutate: { patchesJson6902: '[{"op": "add", "path": "/spec/x", "value": 1}]' } });
    expect(problems(policy({ background: false, rules: [jsonSpec] }))[0]?.message).toMatch(/metadata field/);
  });
  it('is accepted with background: false on metadata, JSON patches written in YAML (Kyverno decodes only JSON there) and foreach', () => {
    expect(compileKyvernoPolicy(policy({ background: false, rules: [every(metadataOverlay)] })).ok).toBe(true);
    const jsonMetadata = every({ mutate: { patchesJson6902: '[{"op": "add", "path": "/metadata/labels/x", "value": "1"}]' } });
    const yaml = every({ mutate: { patchesJson6902: '- op: add\n  path: /spec/x\n  value: 1' } });
    const foreach = every({ mutate: { foreach: [{ list: 'request.object.spec.containers', patchStrategicMerge: { spec: { x: 1 } } }] } });
    for (const accepted of [jsonMetadata, yaml, foreach]) expect(problems(policy({ background: false, rules: [accepted] }))).toEqual([]);
  });
});

describe('JSON-patch texts at load', () => {
  it('a valid text, or one with variables, compiles (variables are checked when they are known)', () => {
    expect(problems(policy({ rules: [rule({ mutate: { patchesJson6902: '- path: "/metadata/labels/img"\n  op: add\n  value: "nginx"' } })] }))).toEqual([]);
    expect(problems(policy({ rules: [rule({ mutate: { patchesJson6902: '- op: {{ request.object.metadata.name }}\n  path: /x' } })] }))).toEqual([]);
  });
});

describe('a ClusterPolicy with a namespace', () => {
  it('is refused, as Kyverno refuses it', () => {
    expect(problems(policy({ rules: [rule(psm)] }, { metadata: { namespace: 'team' } }))).toEqual([{ path: 'metadata.namespace', message: 'A clusterpolicy should not have the namespace defined' }]);
    expect(problems(policy({ rules: [rule(psm)] }, { metadata: { namespace: '' } }))).toEqual([]);
  });
});

describe('mutateExistingOnPolicyUpdate without targets, as Kyverno validates a policy spec', () => {
  const forbidden = (i: number) => ({ path: 'spec.mutateExistingOnPolicyUpdate', message: `Forbidden: rules[${i}].mutate.targets has to be specified when mutateExistingOnPolicyUpdate is set` });
  const onUpdate = (mutate: JsonObject): JsonObject => rule({ mutate: { mutateExistingOnPolicyUpdate: true, ...mutate } });
  it('refuses each mutate rule that asks for it without targets', () => {
    expect(problems(policy({ rules: [rule(psm), { ...onUpdate(psm.mutate), name: 'r1' }, { ...onUpdate({ ...psm.mutate, targets: [] }), name: 'r2' }] }))).toEqual([
      forbidden(1),
      forbidden(2),
      // An empty list is still a mutate-existing rule (Kyverno's HasMutateExisting: targets != nil), not run here.
      { path: 'spec.rules[2].mutate.targets', message: 'mutate-existing rule (targets): Kyverno runs it in its background controller, which no admission webhook can do; the rule is not run' },
    ]);
  });
  it('applies the policy-wide flag even to a rule that turns its own off', () => {
    const off = rule({ mutate: { ...psm.mutate, mutateExistingOnPolicyUpdate: false } });
    expect(problems(policy({ mutateExistingOnPolicyUpdate: true, rules: [off] }))).toEqual([forbidden(0)]);
    expect(problems(policy({ rules: [off] }))).toEqual([]);
  });
});

describe('one way to patch, as Kyverno validates a mutate rule', () => {
  const entry = (e: JsonObject): JsonObject => ({ list: 'request.object.spec.containers', ...e });
  it('refuses both patch kinds in a rule', () => {
    expect(problems(policy({ rules: [rule({ mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } }, patchesJson6902: '[]' } })] }))).toEqual([
      { path: 'spec.rules[0].mutate', message: 'only one of `patchStrategicMerge` or `patchesJson6902` is allowed' },
    ]);
  });
  it('refuses a patch beside foreach, and a foreach entry with none or both', () => {
    const beside = { mutate: { patchesJson6902: '[]', foreach: [entry({ patchesJson6902: '[]' })] } };
    expect(problems(policy({ rules: [rule(beside)] }))[0]?.message).toBe('only one of `foreach`, `patchStrategicMerge`, or `patchesJson6902` is allowed');
    const none = { mutate: { foreach: [entry({ patchesJson6902: '[]' }), entry({})] } };
    expect(problems(policy({ rules: [rule(none)] }))).toEqual([{ path: 'spec.rules[0].mutate.foreach[1]', message: 'only one of `patchStrategicMerge` or `patchesJson6902` is allowed' }]);
    const nestedBoth = { mutate: { foreach: [entry({ foreach: [entry({ patchesJson6902: '[]', patchStrategicMerge: { metadata: {} } })] })] } };
    expect(problems(policy({ rules: [rule(nestedBoth)] }))[0]?.path).toBe('spec.rules[0].mutate.foreach[0].foreach[0]');
  });
  it('accepts one patch per rule and per foreach entry', () => {
    const ok = { mutate: { foreach: [entry({ patchesJson6902: '[]' }), entry({ foreach: [entry({ patchStrategicMerge: { metadata: {} } })] })] } };
    expect(problems(policy({ rules: [rule(ok)] }))).toEqual([]);
  });
});

describe('warnings', () => {
  it('only mutate rules are kept', () => {
    const result = compileKyvernoPolicy(policy({ rules: [{ name: 'v', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate: { pattern: { metadata: { labels: { team: '?*' } } } } }, rule(psm)] }));
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
    // Read as Kyverno reads it (pkg/autogen/v1 computeRules, generateRuleForControllers, generateCronJobRule):
    // names are not trimmed, CronJob is found anywhere in the text, and an empty annotation asks for none.
    const annotated = (value: string) => policy({ rules: [rule(psm)] }, { metadata: { annotations: { 'pod-policies.kyverno.io/autogen-controllers': value } } });
    const kinds = (value: string) => {
      const result = compileKyvernoPolicy(annotated(value));
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      return result.policy.rules.map((r) => `${r.name}:${(r.match.any ?? []).flatMap((f) => (f.kinds ?? []).map((k) => k.kind)).join('+')}`);
    };
    expect(kinds('Deployment, StatefulSet, CronJob')).toEqual(['r:Pod', 'autogen-r:Deployment', 'autogen-cronjob-r:CronJob']);
    expect(kinds('CronJob')).toEqual(['r:Pod', 'autogen-cronjob-r:CronJob']);
    expect(names(annotated(''))).toEqual(['r']);
    expect(names(policy({ rules: [rule(psm), { ...rule({ mutate: { patchesJson6902: '[]' } }), name: 'j' }] }))).toEqual(['r', 'j']);
    expect(names(policy({ rules: [{ ...rule(psm), match: { any: [{ resources: { kinds: ['Pod'], names: ['x'] } }] } }] }))).toEqual(['r']);
    expect(names(policy({ rules: [{ ...rule(psm), match: { any: [{ resources: { kinds: ['Pod', 'Deployment'] } }] } }] }))).toEqual(['r']);
  });
});
