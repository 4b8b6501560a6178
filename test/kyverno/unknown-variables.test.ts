/**
 * Kyverno refuses a policy with a `{{ }}` variable it does not know (validation/invalid-variables.ts):
 * where it looks, what extends the known set, and what the policy set does with such a policy.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { jmesPathOf, parsePath, selfPathExpression } from '../../src/kyverno/context/self-path.js';

const PODS = { any: [{ resources: { kinds: ['Pod'] } }] };

function policy(rule: JsonObject, spec: JsonObject = {}): JsonObject {
  return { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name: 'p' }, spec: { ...spec, rules: [{ name: 'r', match: PODS, ...rule }] } };
}

/** The variable findings (and problems) of a policy: `path: message`. */
function variableProblems(doc: JsonObject): string[] {
  const r = compileKyvernoPolicy(doc);
  const all = r.ok ? r.findings : r.problems;
  return all.filter((f) => /invalid variables/.test(f.message)).map((f) => `${f.path}: ${f.message}`);
}

const label = (value: string) => ({ mutate: { patchStrategicMerge: { metadata: { labels: { x: value } } } } });

describe('unknown variables', () => {
  it('refuses an unknown one with Kyverno\'s message, at the field holding it', () => {
    expect(variableProblems(policy(label('{{ team }}')))).toEqual([
      'spec.rules[0].mutate.patchStrategicMerge.metadata.labels.x: policy contains invalid variables: variable substitution failed for rule r: variable team must match regex "request\\.|element|elementIndex|@|images|images\\.|image\\.|([a-z_0-9]+\\()[^{}]" or patterns []',
    ]);
    // Outside background mode the wider set applies (no dot needed, serviceAccountName allowed).
    expect(variableProblems(policy(label('{{ serviceAccountName }}-{{ request }}'), { background: false }))).toEqual([]);
    expect(variableProblems(policy(label('{{ request }}')))).toHaveLength(1);
  });

  it('looks at every string and key of the rule, not at escaped variables', () => {
    expect(variableProblems(policy(label('\\{{ team }}')))).toEqual([]);
    expect(variableProblems(policy({ mutate: { patchStrategicMerge: { metadata: { labels: { '{{ team }}': 'x' } } } } }))[0]).toMatch(/^spec\.rules\[0\]\.mutate\.patchStrategicMerge\.metadata\.labels\["\{\{ team \}\}"\]: .*variable team must match/);
    expect(variableProblems(policy({ ...label('a'), preconditions: { all: [{ key: '{{ nope }}', operator: 'Equals', value: 'a' }] } }))[0]).toMatch(/preconditions\.all\[0\]\.key: .*variable nope must/);
    // A literal is no known variable either; an empty variable is no query.
    expect(variableProblems(policy(label('{{ `"x"` }}')))).toHaveLength(1);
    expect(variableProblems(policy(label('a{{ }}')))[0]).toMatch(/failed to resolve  at path \/mutate\/patchStrategicMerge\/metadata\/labels\/x: invalid query \(nil\)/);
  });

  it('knows context entries by their patterns, quotes removed', () => {
    const context: JsonObject[] = [
      { name: 'my-map', configMap: { name: 'm', namespace: 'default' } },
      { name: 'v', variable: { value: 'a' } },
    ];
    expect(variableProblems(policy({ context, ...label('{{ "my-map".data.k }}{{ vx.y }}') }))).toEqual([]);
    expect(variableProblems(policy({ context, ...label('{{ "my-map".kind }}') }))[0]).toMatch(/variable my-map\.kind must match .* or patterns \[my-map\.data my-map\.metadata my-map\.data\.\* my-map\.metadata\.\* v\*\]/);
  });

  it('foreach: element variables anywhere, context entries of the first level only', () => {
    const nested = (context: JsonObject[]) => ({
      mutate: {
        foreach: [
          {
            list: 'request.object.spec.containers',
            foreach: [{ list: 'element.ports', context, patchStrategicMerge: { metadata: { labels: { a: '{{ port }}-{{ element.name }}' } } } }],
          },
        ],
      },
    });
    expect(variableProblems(policy(nested([{ name: 'port', variable: { jmesPath: 'element.containerPort' } }])))[0]).toMatch(/variable port must match/);
    const first = { mutate: { foreach: [{ list: 'request.object.spec.containers', context: [{ name: 'port', variable: { jmesPath: 'element.name' } }], patchStrategicMerge: { metadata: { labels: { a: '{{ port }}' } } } }] } };
    expect(variableProblems(policy(first))).toEqual([]);
  });

  it('checks the outer variable of a nested one with null in place of the inner one, and stops after a shallow one', () => {
    expect(variableProblems(policy(label('{{ images.containers."{{ request.object.metadata.name }}".tag }}')))).toEqual([]);
    expect(variableProblems(policy(label('{{ team.{{ request.object.metadata.name }} }}')))[0]).toMatch(/variable team\.null must match/);
    expect(variableProblems(policy(label('{{- request.object.metadata.name }}{{ team }}')))).toEqual([]);
  });

  it('writes {{@}} as Kyverno does: a segment with ")" but no "(" stays bare, and does not parse', () => {
    expect(selfPathExpression('/mutate/patchStrategicMerge/spec/containers/0/(name)', 'request.object')).toBe('request.object.spec.containers[0]."(name)"');
    expect(selfPathExpression('/mutate/foreach/0/patchStrategicMerge/a', 'request.object')).toBe('request.object.a');
    expect(parsePath('/a\\/b/"c/d"/e')).toEqual(['a/b', 'c/d', 'e']);
    expect(jmesPathOf(['x', 'a-b', '7', 'tab\there'])).toBe('x."a-b"[7]."tab\\there"');
    expect(variableProblems(policy({ mutate: { patchStrategicMerge: { metadata: { labels: { 'name)': '{{@}}', '(name)': '{{@}}' } } } } }))).toEqual([
      'spec.rules[0].mutate.patchStrategicMerge.metadata.labels["name)"]: policy contains invalid variables: variable substitution failed for rule r: failed to resolve request.object.metadata.labels.name) at path /mutate/patchStrategicMerge/metadata/labels/name): invalid JMESPath query request.object.metadata.labels.name): SyntaxError: Unexpected token at the end of the expression: tRparen',
    ]);
  });

  it('checks a mutate-existing rule\'s context and preconditions without the target variables', () => {
    const rule = { mutate: { targets: [{ apiVersion: 'v1', kind: 'ConfigMap', name: '{{ target.metadata.name }}' }], patchStrategicMerge: { data: { a: '{{ target.data.a }}' } } } };
    expect(variableProblems(policy(rule, { background: false }))[0]).toMatch(/invalid variables defined at mutate\.targets\[0\]: variable target\.metadata\.name must match/);
    const fine = { mutate: { targets: [{ apiVersion: 'v1', kind: 'ConfigMap', name: '{{ request.object.metadata.name }}' }], patchStrategicMerge: { data: { a: '{{ target.data.a }}' } } } };
    expect(variableProblems(policy(fine, { background: false }))).toEqual([]);
  });

  it('the policy set refuses such a policy, unless built to keep it (amender apply and test)', () => {
    const source = () => [parseDocuments('p.json', JSON.stringify([policy(label('{{ team }}'))]))];
    const refused = buildPolicySet(source());
    expect(refused.kyvernoPolicies).toEqual([]);
    expect(refused.problems.map((p) => [p.path, p.effect])).toEqual([['spec.rules[0].mutate.patchStrategicMerge.metadata.labels.x', 'ignored']]);
    const kept = buildPolicySet(source(), { unknownVariables: 'keep' });
    expect(kept.kyvernoPolicies.map((p) => p.name)).toEqual(['p']);
    expect(kept.problems.map((p) => p.effect)).toEqual(['kept']);
    expect(() => buildPolicySet([], { unknownVariables: 'maybe' as 'keep' })).toThrow(/unknownVariables: expected 'refuse' or 'keep'/);
  });
});
