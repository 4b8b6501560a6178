/**
 * What every request counts goes through series resolved once (src/observe/metrics.ts ChildTable): the
 * /metrics text stays as the exposition format and the earlier registry wrote it — labels sorted by name,
 * series in the order first seen, cumulative histogram buckets — and a series appears only once counted.
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { Counter, createApp, fixedPolicySet, Histogram, Registry } from '../../src/server/index.js';

const POLICY = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label-team}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"team": "shop"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label-team}
spec: {policyName: label-team}
`;

const REVIEW = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-1',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    namespace: 'shop',
    name: 'p',
    operation: 'CREATE',
    userInfo: { username: 'alice' },
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'shop' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  },
});

/** The lines of one metric family (its samples, no HELP/TYPE). */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

describe('/metrics series counted per request', () => {
  it('lists requests, reviews and policy evaluations with sorted labels in the order first seen', async () => {
    const set = buildPolicySet([parseDocuments('p.yaml', POLICY)]);
    // Every clock reading is 2 ms after the one before: each review takes a whole number of readings.
    let now = 0;
    const { app } = createApp({ policies: fixedPolicySet(set, 'test'), clock: () => (now += 2) });
    const post = (body: string) => app.fetch(new Request('http://x/mutate', { method: 'POST', body, headers: { 'content-type': 'application/json' } }));
    for (let i = 0; i < 3; i++) expect((await post(REVIEW)).status).toBe(200);
    expect((await post('{')).status).toBe(400);
    expect((await app.fetch(new Request('http://x/healthz'))).status).toBe(200);
    expect((await app.fetch(new Request('http://x/nowhere'))).status).toBe(404);
    const text = await (await app.fetch(new Request('http://x/metrics'))).text();

    expect(samples(text, 'amender_http_requests_total')).toEqual([
      'amender_http_requests_total{code="200",route="/mutate"} 3',
      'amender_http_requests_total{code="400",route="/mutate"} 1',
      'amender_http_requests_total{code="200",route="/healthz"} 1',
      'amender_http_requests_total{code="404",route="unmatched"} 1',
    ]);
    expect(samples(text, 'amender_reviews_total')).toEqual(['amender_reviews_total{outcome="patched"} 3', 'amender_reviews_total{outcome="invalid"} 1']);
    expect(samples(text, 'amender_policy_evaluations_total')).toEqual([
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-team",policy_set="default"} 3',
    ]);
    // One series (no cluster); cumulative buckets ending at the count.
    const buckets = samples(text, 'amender_review_duration_seconds_bucket');
    const counts = buckets.map((l) => Number(l.split(' ')[1]));
    expect(buckets.at(-1)).toBe('amender_review_duration_seconds_bucket{le="+Inf"} 4');
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(samples(text, 'amender_review_duration_seconds_count')).toEqual(['amender_review_duration_seconds_count 4']);
    const sum = Number(samples(text, 'amender_review_duration_seconds_sum')[0].split(' ')[1]);
    expect(sum).toBeGreaterThan(0);
    expect(buckets.filter((l) => Number(l.split(' ')[1]) > 0)[0]).toMatch(/le="0\.0(05|1|025)"/);
  });

  it('keeps a series from a child and from labels as one, listed only once counted', () => {
    const registry = new Registry();
    const counter = registry.register(new Counter('c_total', 'C.'));
    const histogram = registry.register(new Histogram('h_seconds', 'H.', [0.1, 1]));
    expect(registry.render()).not.toContain('c_total{');
    const child = counter.child({ b: '2', a: '1' });
    child.inc();
    counter.inc({ a: '1', b: '2' }, 2);
    expect(counter.get({ b: '2', a: '1' })).toBe(3);
    histogram.child({ x: 'y' }).observe(0.5);
    histogram.observe(0.05, { x: 'y' });
    histogram.observe(Number.NaN, { x: 'y' });
    expect(samples(registry.render(), 'c_total')).toEqual(['c_total{a="1",b="2"} 3']);
    expect(registry.render()).toContain(
      ['h_seconds_bucket{le="0.1",x="y"} 1', 'h_seconds_bucket{le="1",x="y"} 2', 'h_seconds_bucket{le="+Inf",x="y"} 3', 'h_seconds_sum{x="y"} NaN', 'h_seconds_count{x="y"} 3'].join('\n'),
    );
  });
});
