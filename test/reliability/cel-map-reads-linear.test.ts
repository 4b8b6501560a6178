/**
 * A CEL loop that reads a large map of the review at every step (`size()`, a comprehension over it, `in`,
 * `==`) costs 1 or a few units per step in Kubernetes' cost model, as cel-go's `len` of a map is one read.
 * Each such read listed every key of the map again (`Object.keys`): a Pod of 150,000 labels (2 MB) under
 * `labels.all(k, labels.size() > 0)` ran 140 s inside the cost limit, the review's deadline looked at only
 * every 20,000 cost units. Work is counted, not timed: the labels are a proxy that counts how often its
 * keys are listed (`ownKeys`), through the CEL package's Evaluation and through the HTTP app.
 */
import { describe, expect, it } from 'vitest';
import { compileExpression, Evaluation } from '../../src/cel/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';

const N = 2_000;

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
    const set = buildPolicySet([parseDocuments('sizes.yaml', yaml)]);
    expect(set.problems).toEqual([]);
    const labels: Record<string, string> = {};
    for (let i = 0; i < 150_000; i++) labels[`k${i}`] = 'v';
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u1',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: 'default',
        operation: 'CREATE',
        userInfo: { username: 'alice' },
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    const { app } = createApp({ policies: fixedPolicySet(set, 'test'), logger: () => {} });
    const res = await app.fetch(new Request('http://x/mutate', { method: 'POST', body: JSON.stringify(review), headers: { 'content-type': 'application/json' } }));
    expect(res.status).toBe(200);
    const response = ((await res.json()) as { response: { allowed: boolean; status: { message: string } } }).response;
    // As kube-apiserver answers it: each step costs a few units, so the loop passes the per-call limit.
    expect(response.allowed).toBe(false);
    expect(response.status.message).toContain('actual cost limit exceeded');
  });
});
