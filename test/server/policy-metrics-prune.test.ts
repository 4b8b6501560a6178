/**
 * Per-policy series follow the set in force: once a review shows its set was replaced, the series of
 * policies (and Kyverno rules) the new set no longer serves leave /metrics, so renamed or rotated policies
 * never grow it without bound; a policy that comes back starts from 0 (a new series, as Prometheus
 * expects). A review evaluated against the set before makes no series for a policy since removed.
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments, type PolicySet } from '../../src/policyset/index.js';
import { createApp, inProcessReviewer, type PolicySetState, type Reviewer } from '../../src/server/index.js';

function mapPolicy(name: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"${name}": "x"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}}
`;
}

function kyvernoPolicy(name: string, rule: string): string {
  return JSON.stringify({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name },
    spec: { rules: [{ name: rule, match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels: { [rule]: 'y' } } } } }] },
  });
}

const set = (...docs: string[]): PolicySet => buildPolicySet(docs.map((d, i) => parseDocuments(`memory://${i}.yaml`, d)));

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

/** An app over a set that the test replaces, as a refresher applies one. */
function appOver(first: PolicySet, reviewer: Reviewer = inProcessReviewer) {
  let state: PolicySetState = { set: first, source: 'memory://', loadedAt: new Date(0), sourceErrors: [], generation: 1 };
  const { app } = createApp({ policies: () => state, reviewer });
  return {
    apply: (next: PolicySet) => void (state = { ...state, set: next, generation: state.generation! + 1 }),
    review: async () => expect((await app.fetch(new Request('http://x/mutate', { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } }))).status).toBe(200),
    /** The per-policy samples (policy and rule metrics, histograms by their _count), without the set label. */
    series: async () => {
      const text = await (await app.fetch(new Request('http://x/metrics'))).text();
      return text
        .split('\n')
        .filter((l) => /^amender_(policy_evaluations_total|policy_duration_seconds_count|kyverno_rule_evaluations_total|kyverno_rule_duration_seconds_count)\{/.test(l))
        .map((l) => l.replace(',policy_set="default"', '').replace('policy_set="default",', ''));
    },
  };
}

describe('per-policy metric series of policies no longer served', () => {
  it('leave /metrics once the set is replaced; a policy that comes back starts from 0', async () => {
    const a = appOver(set(mapPolicy('label-a'), kyvernoPolicy('k', 'one')));
    await a.review();
    await a.review();
    expect(await a.series()).toEqual([
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-a"} 2',
      'amender_policy_evaluations_total{engine="Kyverno",outcome="mutated",policy="ClusterPolicy/k"} 2',
      'amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="label-a"} 2',
      'amender_policy_duration_seconds_count{engine="Kyverno",policy="ClusterPolicy/k"} 2',
      'amender_kyverno_rule_evaluations_total{policy="ClusterPolicy/k",rule="one",status="applied"} 2',
      'amender_kyverno_rule_duration_seconds_count{policy="ClusterPolicy/k",rule="one"} 2',
    ]);

    // label-a renamed label-b, and the Kyverno policy's rule renamed: the policy k keeps its series.
    a.apply(set(mapPolicy('label-b'), kyvernoPolicy('k', 'two')));
    await a.review();
    expect(await a.series()).toEqual([
      'amender_policy_evaluations_total{engine="Kyverno",outcome="mutated",policy="ClusterPolicy/k"} 3',
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-b"} 1',
      'amender_policy_duration_seconds_count{engine="Kyverno",policy="ClusterPolicy/k"} 3',
      'amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="label-b"} 1',
      'amender_kyverno_rule_evaluations_total{policy="ClusterPolicy/k",rule="two",status="applied"} 1',
      'amender_kyverno_rule_duration_seconds_count{policy="ClusterPolicy/k",rule="two"} 1',
    ]);

    // label-a back, alone: its counters start again from 0.
    a.apply(set(mapPolicy('label-a')));
    await a.review();
    expect(await a.series()).toEqual([
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-a"} 1',
      'amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="label-a"} 1',
    ]);
  });

  it('leave /metrics at the first scrape after the set is replaced, with no review since', async () => {
    const a = appOver(set(mapPolicy('label-a'), mapPolicy('label-b')));
    await a.review();
    a.apply(set(mapPolicy('label-b')));
    expect(await a.series()).toEqual([
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-b"} 1',
      'amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="label-b"} 1',
    ]);
  });

  it('of a cluster leave /metrics at the first scrape after its set is replaced', async () => {
    let state: PolicySetState = { set: set(mapPolicy('label-a')), source: 'memory://', loadedAt: new Date(0), sourceErrors: [] };
    const clusters = { get: (name: string) => (name === 'east' ? { verifier: { verify: async (s: string | undefined) => s === 'key' }, provider: () => state } : undefined) };
    const { app } = createApp({ policies: () => state, clusters });
    const post = await app.fetch(new Request('http://x/clusters/east/mutate', { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json', authorization: 'Bearer key' } }));
    expect(post.status).toBe(200);
    const evaluations = async () => (await (await app.fetch(new Request('http://x/metrics'))).text()).split('\n').filter((l) => l.startsWith('amender_policy_evaluations_total{'));
    expect(await evaluations()).toEqual(['amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-a",policy_set="east"} 1']);
    state = { ...state, set: set(mapPolicy('label-b')) };
    expect(await evaluations()).toEqual([]);
  });

  it('stay as many as the policies in force whatever the number of sets applied', async () => {
    const a = appOver(set(mapPolicy('rotated-0')));
    for (let i = 0; i < 50; i++) {
      a.apply(set(mapPolicy(`rotated-${i}`), mapPolicy('steady')));
      await a.review();
    }
    expect(await a.series()).toEqual([
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="steady"} 50',
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="rotated-49"} 1',
      'amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="steady"} 50',
      'amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="rotated-49"} 1',
    ]);
  });

  it('stay for every policy of a set rebuilt with the same documents, of every kind', async () => {
    const mutatingPolicy = (kind: string, name: string, namespace?: string) => `apiVersion: policies.kyverno.io/v1
kind: ${kind}
metadata: {name: ${name}${namespace ? `, namespace: ${namespace}` : ''}}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
  mutations: [{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"${name}": "z"}}}'}}]
`;
    const namespaced = JSON.parse(kyvernoPolicy('nk', 'three')) as { kind: string; metadata: Record<string, string> };
    namespaced.kind = 'Policy';
    namespaced.metadata.namespace = 'shop';
    const docs = [
      mapPolicy('label-a'),
      kyvernoPolicy('k', 'one'),
      JSON.stringify(namespaced),
      mutatingPolicy('MutatingPolicy', 'mpol'),
      mutatingPolicy('NamespacedMutatingPolicy', 'nmpol', 'shop'),
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n',
    ];
    const a = appOver(set(...docs));
    await a.review();
    const before = await a.series();
    expect(before.length).toBe(2 * 5 + 2 * 2); // 5 policies: outcome and duration; 2 Kyverno rules: the same
    a.apply(set(...docs));
    await a.review();
    expect(await a.series()).toEqual(before.map((l) => l.replace(/ 1$/, ' 2')));
  });

  it('are not made by a review evaluated against the set before', async () => {
    const next = set(mapPolicy('label-b'));
    // The set is replaced while the review is evaluated (as on the Node server's review workers).
    let a: ReturnType<typeof appOver> | undefined;
    const swapping: Reviewer = async (job) => {
      const answer = await inProcessReviewer(job);
      a!.apply(next);
      return answer;
    };
    a = appOver(set(mapPolicy('label-a'), mapPolicy('label-b')), swapping);
    await a.review();
    expect(await a.series()).toEqual([
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-b"} 1',
      'amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="label-b"} 1',
    ]);
  });

  it('are not taken back to an older set by a review evaluated against it after a newer one was seen', async () => {
    // The review of the first set waits in its reviewer while the second set is applied and reviewed.
    let release!: () => void;
    let entered!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inReviewer = new Promise<void>((resolve) => (entered = resolve));
    const held: Reviewer = async (job) => {
      if (job.state.generation === 1) {
        entered();
        await gate;
      }
      return inProcessReviewer(job);
    };
    const a = appOver(set(mapPolicy('label-a'), mapPolicy('label-b')), held);
    const late = a.review();
    await inReviewer;
    a.apply(set(mapPolicy('label-b'), mapPolicy('label-c')));
    await a.review();
    release();
    await late;
    expect(await a.series()).toEqual([
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-b"} 2',
      'amender_policy_evaluations_total{engine="MutatingAdmissionPolicy",outcome="mutated",policy="label-c"} 1',
      'amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="label-b"} 2',
      'amender_policy_duration_seconds_count{engine="MutatingAdmissionPolicy",policy="label-c"} 1',
    ]);
  });
});
