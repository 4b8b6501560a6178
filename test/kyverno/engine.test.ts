/** The engine through the public API: ordering, context freshness, failure handling, outcomes. */
import { describe, expect, it } from 'vitest';
import { cloneJson, type JsonObject, type JsonValue } from '../../src/json/index.js';
import {
  formatKyvernoOutcomes,
  kyvernoAuditAnnotations,
  runKyvernoPolicies,
  sortKyvernoPolicies,
  type KyvernoResult,
} from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

const yamlPatch = (ops: string) => ({ patchesJson6902: ops });
const spec = (r: KyvernoResult) => (r.object as JsonObject).spec as JsonObject;
const labels = (r: KyvernoResult) => ((r.object as JsonObject).metadata as JsonObject).labels as JsonObject;

describe('context freshness', () => {
  it("the second policy's foreach uses elementIndex against the list the first policy prepended to", async () => {
    const prepend = compiled(
      clusterPolicy('aaa-prepend-volume', [
        {
          name: 'prepend',
          mutate: yamlPatch('- op: add\n  path: /spec/volumes/0\n  value: {name: extra-cache, emptyDir: {}}'),
        },
      ]),
    );
    const sizeLimit = compiled(
      clusterPolicy('zzz-emptydir-sizelimit', [
        {
          name: 'size-limit',
          mutate: {
            foreach: [
              {
                list: 'request.object.spec.volumes[]',
                preconditions: { all: [{ key: '{{ element.keys(@) }}', operator: 'AnyIn', value: ['emptyDir'] }] },
                patchesJson6902: '- op: add\n  path: /spec/volumes/{{elementIndex}}/emptyDir/sizeLimit\n  value: 250Mi',
              },
            ],
          },
        },
      ]),
    );
    const subject = pod('p', ['app'], { volumes: [{ name: 'data', configMap: { name: 'cm' } }, { name: 'cache', emptyDir: {} }] });
    // Given in the "wrong" order on purpose: the engine sorts by name.
    const result = await runKyvernoPolicies([sizeLimit, prepend], { request: podRequest(subject) });
    expect(result.policies.map((p) => p.policy)).toEqual(['ClusterPolicy/aaa-prepend-volume', 'ClusterPolicy/zzz-emptydir-sizelimit']);
    expect(spec(result).volumes).toEqual([
      { name: 'extra-cache', emptyDir: { sizeLimit: '250Mi' } },
      { name: 'data', configMap: { name: 'cm' } },
      { name: 'cache', emptyDir: { sizeLimit: '250Mi' } },
    ]);
  });

  it('a rule sees the previous rule’s output through request.object', async () => {
    const policy = compiled(
      clusterPolicy('chain', [
        { name: 'first', mutate: yamlPatch('- op: add\n  path: /metadata/labels\n  value: {step: one}') },
        { name: 'second', mutate: yamlPatch('- op: add\n  path: /metadata/labels/seen\n  value: "{{ request.object.metadata.labels.step }}"') },
      ]),
    );
    const result = await runKyvernoPolicies([policy], { request: podRequest(pod('p', ['a'])) });
    expect(labels(result)).toEqual({ step: 'one', seen: 'one' });
  });

  it('elements of one foreach entry all see request.object as it was before the entry; the next entry sees the result', async () => {
    const policy = compiled(
      clusterPolicy('foreach', [
        {
          name: 'count',
          mutate: {
            foreach: [
              {
                list: 'request.object.spec.containers',
                patchesJson6902:
                  '- op: add\n  path: /metadata/annotations/{{element.name}}\n  value: "{{ length(request.object.metadata.annotations || `{}`) }}"',
              },
              {
                list: "['once']",
                patchesJson6902: '- op: add\n  path: /metadata/annotations/after\n  value: "{{ length(request.object.metadata.annotations) }}"',
              },
            ],
          },
        },
      ]),
    );
    const subject = pod('p', ['a', 'b', 'c']);
    (subject.metadata as JsonObject).annotations = {};
    const result = await runKyvernoPolicies([policy], { request: podRequest(subject) });
    expect(((result.object as JsonObject).metadata as JsonObject).annotations).toEqual({ a: '0', b: '0', c: '0', after: '3' });
  });

  it('elementIndex is the position in the original list, also in descending order', async () => {
    const policy = compiled(
      clusterPolicy('remove', [
        {
          name: 'drop-debug',
          mutate: {
            foreach: [
              {
                list: 'request.object.spec.containers',
                order: 'Descending',
                preconditions: { any: [{ key: '{{ element.name }}', operator: 'Equals', value: 'debug-*' }] },
                patchesJson6902: '- op: remove\n  path: /spec/containers/{{elementIndex}}',
              },
            ],
          },
        },
      ]),
    );
    const result = await runKyvernoPolicies([policy], { request: podRequest(pod('p', ['debug-1', 'app', 'debug-2', 'sidecar'])) });
    expect((spec(result).containers as JsonObject[]).map((c) => c.name)).toEqual(['app', 'sidecar']);
  });

  it('a foreach list that evaluates to null runs nothing', async () => {
    const policy = compiled(
      clusterPolicy('nil', [
        { name: 'nil-list', mutate: { foreach: [{ list: 'request.object.spec.initContainers || `null`', patchesJson6902: '- op: remove\n  path: /spec' }] } },
      ]),
    );
    const result = await runKyvernoPolicies([policy], { request: podRequest(pod('p', ['a'])) });
    expect(result.policies[0].rules[0]).toMatchObject({ status: 'skipped' });
    expect(result.changed).toBe(false);
  });
});

describe('policies and rules', () => {
  it('applyRules One stops after the first rule that applied', async () => {
    const policy = compiled(
      clusterPolicy(
        'one',
        [
          { name: 'noop', mutate: yamlPatch('- op: remove\n  path: /metadata/labels/absent') },
          { name: 'first', mutate: yamlPatch('- op: add\n  path: /metadata/labels\n  value: {a: "1"}') },
          { name: 'second', mutate: yamlPatch('- op: add\n  path: /metadata/labels/b\n  value: "2"') },
        ],
        { applyRules: 'One' },
      ),
    );
    const result = await runKyvernoPolicies([policy], { request: podRequest(pod('p', ['a'])) });
    expect(result.policies[0].rules.map((r) => [r.rule, r.status])).toEqual([
      ['noop', 'skipped'],
      ['first', 'applied'],
    ]);
    expect(labels(result)).toEqual({ a: '1' });
  });

  it('a failed Ignore policy is rolled back before the next policy runs (no stale base)', async () => {
    const failing = compiled(
      clusterPolicy(
        'a-failing',
        [
          { name: 'adds', mutate: yamlPatch('- op: add\n  path: /metadata/labels\n  value: {partial: "yes"}') },
          { name: 'fails', mutate: yamlPatch('- op: replace\n  path: /spec/missing\n  value: 1') },
        ],
        { failurePolicy: 'Ignore' },
      ),
    );
    const observer = compiled(
      clusterPolicy('b-observer', [
        { name: 'look', mutate: yamlPatch("- op: add\n  path: /metadata/annotations\n  value: {saw: \"{{ request.object.metadata.labels.partial || 'nothing' }}\"}") },
      ]),
    );
    const result = await runKyvernoPolicies([failing, observer], { request: podRequest(pod('p', ['a'])) });
    expect(result.policies.map((p) => p.status)).toEqual(['error', 'applied']);
    expect((result.object as JsonObject).metadata).toEqual({ name: 'p', namespace: 'default', annotations: { saw: 'nothing' } });
    expect(result.rejection).toBeUndefined();
  });

  it('ClusterPolicies by name, then Policies by namespace and name', () => {
    const doc = (kind: string, name: string, namespace?: string) => ({
      ...clusterPolicy(name, [{ name: 'r', mutate: yamlPatch('[]') }]),
      kind,
      metadata: { name, ...(namespace ? { namespace } : {}) },
    });
    const list = [doc('Policy', 'a', 'zz'), doc('ClusterPolicy', 'b'), doc('Policy', 'z', 'aa'), doc('ClusterPolicy', 'a'), doc('Policy', 'b', 'aa')].map(compiled);
    expect(sortKyvernoPolicies(list).map((p) => p.id)).toEqual([
      'ClusterPolicy/a',
      'ClusterPolicy/b',
      'Policy/aa/b',
      'Policy/aa/z',
      'Policy/zz/a',
    ]);
  });

  it('a namespaced Policy only applies in its own namespace', async () => {
    const doc = { ...clusterPolicy('ns', [{ name: 'r', mutate: yamlPatch('- op: add\n  path: /metadata/labels\n  value: {ns: "yes"}') }]), kind: 'Policy' };
    const policy = compiled({ ...doc, metadata: { name: 'ns', namespace: 'team-a' } });
    const elsewhere = await runKyvernoPolicies([policy], { request: podRequest(pod('p', ['a'])) });
    expect(elsewhere.policies).toEqual([]);
    const inside = pod('p', ['a']);
    (inside.metadata as JsonObject).namespace = 'team-a';
    const result = await runKyvernoPolicies([policy], { request: podRequest(inside) });
    expect(labels(result)).toEqual({ ns: 'yes' });
  });

  it('DELETE requests are not mutated', async () => {
    const policy = compiled(clusterPolicy('p', [{ name: 'r', mutate: yamlPatch('- op: add\n  path: /metadata/labels\n  value: {x: "1"}') }]));
    const old = pod('p', ['a']);
    const result = await runKyvernoPolicies([policy], { request: podRequest(old, { operation: 'DELETE', object: null, oldObject: old }) });
    expect(result).toMatchObject({ changed: false, policies: [] });
  });

  it('never modifies its inputs', async () => {
    const policy = compiled(
      clusterPolicy('p', [
        { name: 'r', mutate: { foreach: [{ list: 'request.object.spec.containers', patchesJson6902: '- op: add\n  path: /spec/containers/{{elementIndex}}/x\n  value: 1' }] } },
      ]),
    );
    const subject = deepFreeze(pod('p', ['a', 'b']));
    const copy = cloneJson(subject);
    const result = await runKyvernoPolicies([policy], { request: deepFreeze(podRequest(subject)) });
    expect(subject).toEqual(copy);
    expect((spec(result).containers as JsonObject[]).map((c) => c.x)).toEqual([1, 1]);
  });
});

describe('context entries and namespaces', () => {
  const withContext = (context: JsonValue, value: string) =>
    compiled(clusterPolicy('ctx', [{ name: 'r', context, mutate: yamlPatch(`- op: add\n  path: /metadata/labels\n  value: {v: "${value}"}`) }]));

  it('reads ConfigMaps from the policy sources', async () => {
    const policy = withContext([{ name: 'cfg', configMap: { name: 'settings', namespace: 'kyverno' } }], '{{ cfg.data.team }}');
    const settings = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'kyverno' }, data: { team: 'blue' } };
    const result = await runKyvernoPolicies([policy], {
      request: podRequest(pod('p', ['a'])),
      sources: { configMap: (ns, name) => (ns === 'kyverno' && name === 'settings' ? settings : undefined) },
    });
    expect(labels(result)).toEqual({ v: 'blue' });
  });

  it('values are added as Kyverno adds variables: quoted segments keep their dots, maps merge', async () => {
    const policy = withContext([], '{{ settings."team.name" }}-{{ request.operation }}-{{ request.extra }}');
    const result = await runKyvernoPolicies([policy], {
      request: podRequest(pod('p', ['a'])),
      // a map value merges into the request already in the context instead of replacing it
      values: { 'settings."team.name"': 'blue', request: { extra: 'x' } },
    });
    expect(labels(result)).toEqual({ v: 'blue-CREATE-x' });
  });

  it('apiCall without a live API is a clear rule error; with one it is used', async () => {
    const policy = withContext([{ name: 'ns', apiCall: { urlPath: '/api/v1/namespaces/{{request.namespace}}', jmesPath: 'metadata.labels.team' } }], '{{ ns }}');
    const without = await runKyvernoPolicies([policy], { request: podRequest(pod('p', ['a'])) });
    expect(without.policies[0].rules[0].message).toMatch(/apiCall needs a live cluster API/);
    expect(without.rejection).toBeDefined();
    const calls: string[] = [];
    const withApi = await runKyvernoPolicies([policy], {
      request: podRequest(pod('p', ['a'])),
      sources: {
        apiCall: async ({ urlPath }) => {
          calls.push(urlPath);
          return { metadata: { labels: { team: 'red' } } };
        },
      },
    });
    expect(calls).toEqual(['/api/v1/namespaces/default']);
    expect(labels(withApi)).toEqual({ v: 'red' });
  });

  it('namespaceSelector: known labels match, an empty selector always matches, unknown namespaces are errors', async () => {
    const selecting = (selector: JsonObject) =>
      compiled({
        ...clusterPolicy('sel', []),
        spec: {
          rules: [
            {
              name: 'r',
              match: { any: [{ resources: { kinds: ['Pod'], namespaceSelector: selector } }] },
              mutate: yamlPatch('- op: add\n  path: /metadata/labels\n  value: {selected: "yes"}'),
            },
          ],
        },
      });
    const request = podRequest(pod('p', ['a']));
    const env = await runKyvernoPolicies([selecting({ matchLabels: { env: 'prod' } })], { request, namespaceLabels: { env: 'prod' } });
    expect(labels(env)).toEqual({ selected: 'yes' });
    const other = await runKyvernoPolicies([selecting({ matchLabels: { env: 'prod' } })], { request, namespaceLabels: { env: 'dev' } });
    expect(other.policies).toEqual([]);
    const empty = await runKyvernoPolicies([selecting({})], { request });
    expect(labels(empty)).toEqual({ selected: 'yes' });
    const unknown = await runKyvernoPolicies([selecting({ matchLabels: { env: 'prod' } })], { request });
    expect(unknown.policies[0].rules[0]).toMatchObject({ status: 'error' });
    expect(unknown.policies[0].rules[0].message).toMatch(/labels of namespace "default" are unknown/);
  });
});

describe('outcomes', () => {
  it('audit annotation and CLI lines name every matched rule', async () => {
    const policy = compiled(
      clusterPolicy('report', [
        { name: 'applies', mutate: yamlPatch('- op: add\n  path: /metadata/labels\n  value: {a: "1"}') },
        { name: 'skips', preconditions: { all: [{ key: '{{ request.operation }}', operator: 'Equals', value: 'UPDATE' }] }, mutate: yamlPatch('[]') },
      ]),
    );
    const result = await runKyvernoPolicies([policy], { request: podRequest(pod('web', ['a'])) });
    const annotation = JSON.parse(kyvernoAuditAnnotations(result)['kyverno-mutate']);
    expect(annotation).toEqual([
      { policy: 'ClusterPolicy/report', rule: 'applies', status: 'applied', message: 'mutated Pod/web in namespace default' },
      { policy: 'ClusterPolicy/report', rule: 'skips', status: 'skipped', message: 'preconditions not met' },
    ]);
    expect(formatKyvernoOutcomes(result)).toEqual([
      'ClusterPolicy/report rule applies: applied (mutated Pod/web in namespace default)',
      'ClusterPolicy/report rule skips: skipped (preconditions not met)',
    ]);
  });
});

describe('foreach lists (pkg/engine/utils/foreach.go EvaluateList)', () => {
  const run = async (list: string, value = 'to_string(element)') => {
    const policy = compiled(
      clusterPolicy('lists', [
        {
          name: 'each',
          mutate: { foreach: [{ list, patchesJson6902: `- op: add\n  path: /metadata/labels/seen-{{ elementIndex }}\n  value: "{{ ${value} }}"` }] },
        },
      ]),
    );
    const subject = pod('web', ['app']);
    subject.metadata = { ...(subject.metadata as JsonObject), labels: { app: 'web' } };
    const result = await runKyvernoPolicies([policy], { request: podRequest(subject) });
    return { rule: result.policies[0].rules[0], labels: ((result.object as JsonObject).metadata as JsonObject).labels };
  };
  it('a value that is not a list is a list of itself', async () => {
    const string = await run('request.object.metadata.name');
    expect(string.rule.status).toBe('applied');
    expect(string.labels).toEqual({ app: 'web', 'seen-0': 'web' });
    const map = await run('request.object.metadata.labels', 'element.app');
    expect(map.labels).toEqual({ app: 'web', 'seen-0': 'web' });
  });
  it('null is a list of one null element, which foreach skips', async () => {
    const nothing = await run('request.object.metadata.labels.none || `null`');
    expect(nothing.rule.status).toBe('skipped');
  });
});
