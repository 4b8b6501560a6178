/**
 * Bad input in one rule is that rule's clear error; the policy's other rules and the other policies
 * still run and report (issue 4).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const addLabel = (key: string, value: string) => ({
  name: `label-${key}`,
  mutate: { patchesJson6902: JSON.stringify([{ op: 'add', path: `/metadata/labels`, value: { [key]: value } }]) },
});

async function runWithBrokenRule(broken: JsonObject) {
  const policies = [
    compiled(clusterPolicy('a-broken', [{ name: 'broken', ...broken }, addLabel('same-policy', 'yes')], { failurePolicy: 'Ignore' })),
    compiled(clusterPolicy('b-healthy', [addLabel('other-policy', 'yes')])),
  ];
  const subject = pod('web', ['app']);
  return runKyvernoPolicies(policies, { request: podRequest(subject) });
}

const cases: [string, JsonObject, RegExp][] = [
  ['a patch that is neither valid JSON nor YAML', { mutate: { patchesJson6902: '- op: add\n  path: /a\n  value: [unclosed' } }, /neither valid JSON nor valid YAML/],
  ['a patch that starts with [ but is not JSON', { mutate: { patchesJson6902: '[{"op": "add", "path": "/a", "value": 1}' } }, /neither valid JSON nor valid YAML/],
  ['an unknown op', { mutate: { patchesJson6902: '- op: merge\n  path: /metadata/labels/x\n  value: y' } }, /unsupported operation/],
  ['a path that is not a JSON pointer', { mutate: { patchesJson6902: '- op: add\n  path: metadata/labels/x\n  value: y' } }, /invalid JSON pointer "metadata\/labels\/x"/],
  ['a path with a bad ~ escape', { mutate: { patchesJson6902: '- op: add\n  path: /metadata/labels/a~2b\n  value: y' } }, /"~" must be followed by "0" or "1"/],
  ['an unknown JMESPath function', { mutate: { patchStrategicMerge: { metadata: { labels: { x: '{{ no_such_fn(request.object) }}' } } } } }, /unknown function: no_such_fn/],
  [
    'a foreach list that does not resolve',
    { mutate: { foreach: [{ list: 'request.object.metadata.nope', patchesJson6902: '- op: add\n  path: /metadata/labels/x\n  value: y' }] } },
    /failed to evaluate list request.object.metadata.nope: JMESPath query failed: Unknown key "nope" in path/,
  ],
  ['a variable that does not resolve', { mutate: { patchesJson6902: '- op: add\n  path: /metadata/labels/x\n  value: "{{ request.object.metadata.nope }}"' } }, /Unknown key "nope" in path/],
  ['a validate-only anchor produced by a variable', { mutate: { patchStrategicMerge: { metadata: { labels: { '{{ `"X(app)"` }}': 'x' } } } } }, /validate-only/],
];

describe('bad input is a clear per-rule error', () => {
  for (const [what, broken, message] of cases) {
    it(what, async () => {
      const result = await runWithBrokenRule(broken);
      const [a, b] = result.policies;
      expect(a.policy).toBe('ClusterPolicy/a-broken');
      expect(a.rules[0]).toMatchObject({ rule: 'broken', status: 'error' });
      expect(a.rules[0].message).toMatch(message);
      // The policy's other rule still ran…
      expect(a.rules[1]).toMatchObject({ rule: 'label-same-policy', status: 'applied' });
      // …but a failed Ignore policy's changes are dropped as a whole,
      expect(a.status).toBe('error');
      // while the next policy applies normally.
      expect(b).toMatchObject({ policy: 'ClusterPolicy/b-healthy', status: 'applied' });
      expect((result.object as JsonObject).metadata).toEqual({ name: 'web', namespace: 'default', labels: { 'other-policy': 'yes' } });
      expect(result.rejection).toBeUndefined();
    });
  }

  it('rejects the request when the failing policy has failurePolicy Fail, still reporting the others', async () => {
    const policies = [
      compiled(clusterPolicy('a-strict', [{ name: 'broken', mutate: { patchesJson6902: '- op: explode\n  path: /x' } }])),
      compiled(clusterPolicy('b-healthy', [addLabel('other-policy', 'yes')])),
    ];
    const result = await runKyvernoPolicies(policies, { request: podRequest(pod('web', ['app'])) });
    expect(result.rejection?.message).toMatch(/policy ClusterPolicy\/a-strict: rule broken failed: failed to patch resource: invalid patchesJson6902/);
    expect(result.policies.map((p) => p.status)).toEqual(['error', 'applied']);
  });
});
