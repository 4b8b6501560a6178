/**
 * A CEL loop that reads a large map of the review at every step (`size()`, a comprehension over it, `in`,
 * `==`) costs 1 or a few units per step in Kubernetes' cost model, as cel-go's `len` of a map is one read.
 * Each such read listed every key of the map again (`Object.keys`): a Pod of 150,000 labels (2 MB) under
 * `labels.all(k, labels.size() > 0)` ran 140 s inside the cost limit, the review's deadline looked at only
 * every 20,000 cost units. Work is counted, not timed: the labels are a proxy that counts how often its
 * keys are listed (`ownKeys`), through the CEL package's Evaluation and through the HTTP app.
 *
 * `==` of two `Object{}` values holding such maps (reflect.DeepEqual in Kubernetes) searched the other
 * map's keys for each key: two equal maps of 150,000 labels took some 40 s in one `==`, which no
 * deadline interrupts; the review is now patched within its deadline (an UPDATE whose labels did not
 * change).
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation } from '../../src/cel/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';

const N = 2_000;

/** A pod-create (or UPDATE, with `old`) review of a Pod with these labels, as the API server sends it. */
function podReview(labels: Record<string, string>, operation = 'CREATE'): Record<string, unknown> {
  const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      operation,
      userInfo: { username: 'alice' },
      object,
      oldObject: operation === 'UPDATE' ? object : null,
    },
  };
}

/** The reply to `review` from the HTTP app serving `yaml`. */
async function answer(yaml: string, review: Record<string, unknown>): Promise<{ allowed: boolean; patch?: string; status?: { message: string } }> {
  const set = buildPolicySet([parseDocuments('policy.yaml', yaml)]);
  expect(set.problems).toEqual([]);
  const { app } = createApp({ policies: fixedPolicySet(set, 'test'), logger: () => {} });
  const res = await app.fetch(new Request('http://x/mutate', { method: 'POST', body: JSON.stringify(review), headers: { 'content-type': 'application/json' } }));
  expect(res.status).toBe(200);
  return ((await res.json()) as { response: { allowed: boolean; patch?: string; status?: { message: string } } }).response;
}

function manyLabels(n: number): Record<string, string> {
  const labels: Record<string, string> = {};
  for (let i = 0; i < n; i++) labels[`k${i}`] = 'v';
  return labels;
}

/** N labels, and how many times their keys were listed. */
function countedLabels(n = N): { labels: Record<string, string>; listings: () => number } {
  const target: Record<string, string> = {};
  for (let i = 0; i < n; i++) target[`k${i}`] = 'v';
  let listings = 0;
  const labels = new Proxy(target, {
    ownKeys(t) {
      listings++;
      return Reflect.ownKeys(t);
    },
  });
  return { labels, listings: () => listings };
}

function evaluate(expression: string, object: unknown): { ok: boolean; value?: unknown; message?: string } {
  const r = compileExpression(expression, 'matchCondition', { params: false });
  if (!r.ok) throw new Error(r.message);
  const out = new Evaluation({ object: object as never }, { budget: 10_000_000 }).evaluate(r.compiled);
  return out.ok ? { ok: true, value: out.value } : { ok: false, message: out.message };
}

describe('a loop reading a large map of the review at every step', () => {
  for (const [name, expression] of [
    ['size()', 'object.metadata.labels.all(k, object.metadata.labels.size() > 0)'],
    ['a comprehension over it', 'object.metadata.labels.all(k, object.metadata.labels.exists(j, j == "k0"))'],
    ['== with a map of another size', 'object.metadata.labels.all(k, object.metadata.labels != {"a": "b"})'],
  ] as const) {
    it(`lists its keys a bounded number of times, not once per step: ${name}`, () => {
      const { labels, listings } = countedLabels();
      const out = evaluate(expression, { metadata: { labels } });
      expect(out).toEqual({ ok: true, value: true });
      expect(listings()).toBeLessThanOrEqual(4);
    });
  }

  it('a later evaluation lists the keys again (the document may have been edited in between)', () => {
    const target: Record<string, string> = {};
    for (let i = 0; i < 100; i++) target[`k${i}`] = 'v';
    const object = { metadata: { labels: target } };
    expect(evaluate('object.metadata.labels.all(k, object.metadata.labels.size() == 100)', object)).toEqual({ ok: true, value: true });
    target.extra = 'v';
    expect(evaluate('object.metadata.labels.all(k, object.metadata.labels.size() == 101)', object)).toEqual({ ok: true, value: true });
    delete target.k0;
    delete target.k1;
    expect(evaluate('object.metadata.labels.size() == 99 && !("k0" in object.metadata.labels)', object)).toEqual({ ok: true, value: true });
  });

  it('through the HTTP app: 150,000 labels (2 MB) are answered by the cost limit, not the deadline', async () => {
    const yaml = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: sizes}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  matchConditions:
  - name: many
    expression: 'object.metadata.labels.all(k, object.metadata.labels.size() > 0)'
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"seen": "yes"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: sizes}
spec: {policyName: sizes}
`;
    const response = await answer(yaml, podReview(manyLabels(150_000)));
    // As kube-apiserver answers it: each step costs a few units, so the loop passes the per-call limit.
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toContain('actual cost limit exceeded');
  });
});

describe('== of Object values holding large maps', () => {
  it('compares 150,000 labels with as many lookups: an UPDATE that kept its labels is patched within its deadline', async () => {
    const yaml = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: unchanged}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        Object{metadata: Object.metadata{labels: object.metadata.labels}} == Object{metadata: Object.metadata{labels: oldObject.metadata.labels}}
        ? [JSONPatch{op: "add", path: "/metadata/annotations", value: {"labels": "unchanged"}}] : []
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: unchanged}
spec: {policyName: unchanged}
`;
    const response = await answer(yaml, podReview(manyLabels(150_000), 'UPDATE'));
    expect(response.status?.message).toBeUndefined();
    expect(JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString('utf8'))).toEqual([{ op: 'add', path: '/metadata/annotations', value: { labels: 'unchanged' } }]);
  });

  it('still tells maps apart by their keys, an int key from a uint one, and their values', async () => {
    const cases: [string, boolean][] = [
      ['Object{spec: {"a": 1, "b": 2}} == Object{spec: {"b": 2, "a": 1}}', true],
      ['Object{spec: {"a": 1, "b": 2}} == Object{spec: {"a": 1, "c": 2}}', false],
      ['Object{spec: {1: "x"}} == Object{spec: {1u: "x"}}', false],
      ['Object{spec: {1u: "x", 2u: "y"}} == Object{spec: {2u: "y", 1u: "x"}}', true],
      ['Object{spec: object.metadata.labels} == Object{spec: {"k0": "v", "k1": "v"}}', true],
      ['Object{spec: object.metadata.labels} == Object{spec: {"k0": "v", "k1": "w"}}', false],
      ['Object{spec: {"k0": "v", "k1": "v"}} == Object{spec: object.metadata.labels}', true],
    ];
    for (const [expression, expected] of cases) {
      const r = compileExpression(expression, 'variable', { params: false });
      if (!r.ok) throw new Error(r.message);
      const out = new Evaluation({ object: { metadata: { labels: { k0: 'v', k1: 'v' } } } as never }, { budget: 10_000_000 }).evaluate(r.compiled);
      expect(out.ok ? out.value : out.message, expression).toBe(expected);
    }
  });
});
