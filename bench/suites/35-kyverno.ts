/**
 * Kyverno mutate rules: one review of the 4 KB Pod against 10 rules (patchesJson6902 with variables,
 * foreach with elementIndex paths and per-element preconditions, strategic merge with anchors, a context
 * variable), from parsing the review text to the reply's JSON patch text. Reported with its ratio to
 * `JSON.parse` + `JSON.stringify` of the same review, measured in the same run; and the same for 64 Pods
 * that differ where the rules read, in turn, so that a change which only pays when values repeat from one
 * review to the next shows as such.
 */
import { pod4k } from '../fixtures.js';
import { recordGoal } from '../goals.js';
import { runningNode } from '../nodes.js';
import { formatNs, measureInterleaved, table } from '../lib.js';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { createPatch } from '../../src/jsonpatch/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies, type CompiledKyvernoPolicy } from '../../src/kyverno/index.js';

const podRule = (name: string, rule: JsonObject): JsonObject => ({
  name,
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  ...rule,
});

/**
 * Ten rules over three policies, the shapes kyverno/policies' mutate samples use most. Frozen, as a policy
 * set hands its list to the engine (which then sorts it once, not per review).
 */
export function policies(): readonly CompiledKyvernoPolicy[] {
  const docs: JsonObject[] = [
    {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'bench-labels', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
      spec: {
        background: false, // created-by reads request.userInfo, which Kyverno refuses in background mode
        rules: [
          podRule('team-label', { mutate: { patchStrategicMerge: { metadata: { labels: { owner: '{{ request.object.metadata.labels.team }}' } } } } }),
          podRule('safe-to-evict', { mutate: { patchStrategicMerge: { metadata: { annotations: { '+(cluster-autoscaler.kubernetes.io/safe-to-evict)': 'true' } } } } }),
          podRule('created-by', {
            preconditions: { all: [{ key: '{{ request.operation }}', operator: 'AnyIn', value: ['CREATE', 'UPDATE'] }] },
            mutate: { patchesJson6902: '- op: add\n  path: /metadata/annotations/amender.dev~1created-by\n  value: "{{ request.userInfo.username }}"' },
          }),
          podRule('cost-center', {
            context: [{ name: 'cost', variable: { jmesPath: "request.object.metadata.labels.\"cost-center\" || 'shared'" } }],
            mutate: { patchStrategicMerge: { metadata: { labels: { 'cost-center': '{{ cost }}' } } } },
          }),
        ],
      },
    },
    {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'bench-containers', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
      spec: {
        rules: [
          podRule('run-as-non-root', {
            mutate: { patchStrategicMerge: { spec: { containers: [{ '(name)': '*', securityContext: { '+(runAsNonRoot)': true, '+(seccompProfile)': { type: 'RuntimeDefault' } } }] } } },
          }),
          podRule('env-per-container', {
            mutate: {
              foreach: [
                {
                  list: 'request.object.spec.containers',
                  patchesJson6902: '- op: add\n  path: /spec/containers/{{elementIndex}}/env/-\n  value: {name: CONTAINER_NAME, value: "{{ element.name }}"}',
                },
              ],
            },
          }),
          podRule('pull-policy', {
            mutate: {
              foreach: [
                {
                  list: 'request.object.spec.containers',
                  preconditions: { any: [{ key: '{{ element.image }}', operator: 'Equals', value: 'registry.example.com/*' }] },
                  patchStrategicMerge: { spec: { containers: [{ name: '{{ element.name }}', imagePullPolicy: 'Always' }] } },
                },
              ],
            },
          }),
        ],
      },
    },
    {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'bench-scheduling' },
      spec: {
        rules: [
          podRule('toleration', {
            mutate: { patchesJson6902: '- op: add\n  path: /spec/tolerations/-\n  value: {key: dedicated, operator: Equal, value: "{{ request.namespace }}", effect: NoSchedule}' },
          }),
          podRule('config-volume-mode', {
            mutate: {
              foreach: [
                {
                  list: 'request.object.spec.volumes',
                  preconditions: { all: [{ key: '{{ element.keys(@) }}', operator: 'AnyIn', value: ['configMap'] }] },
                  patchesJson6902: '- op: replace\n  path: /spec/volumes/{{elementIndex}}/configMap/defaultMode\n  value: 288',
                },
              ],
            },
          }),
          podRule('priority', {
            mutate: { patchesJson6902: '[{"op": "replace", "path": "/spec/priority", "value": 10}]' },
          }),
        ],
      },
    },
  ];
  return Object.freeze(
    docs.map((d) => {
      const r = compileKyvernoPolicy(d);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      return r.policy;
    }),
  );
}

/**
 * `n` reviews of the 4 KB Pod that differ where the rules read (names, namespace, team and cost-center
 * labels, containers, images, user): what one review computes can only be reused by another through
 * the policies, not through values that repeat, as they do when one review is measured over and over.
 */
function variedReviews(n: number): string[] {
  const texts: string[] = [];
  for (let i = 0; i < n; i++) {
    const review = pod4k();
    const pod = review.request.object;
    pod.metadata.name = review.request.name = `web-${i}-${(i * 7919) % 100000}`;
    pod.metadata.namespace = review.request.namespace = `ns-${i}`;
    pod.metadata.labels.team = `team-${i}`;
    if (i % 2 === 1) pod.metadata.labels['cost-center'] = `cc-${i}`;
    pod.spec.containers[0].name = `web-${i}`;
    pod.spec.containers[1].name = `sidecar-${i}`;
    pod.spec.containers[1].image = i % 3 === 0 ? `docker.io/proxy:${i}` : `registry.example.com/mesh/proxy:${i}`;
    review.request.userInfo.username = `system:serviceaccount:ns-${i}:deployer`;
    review.request.uid = `uid-${i}`;
    texts.push(JSON.stringify(review));
  }
  return texts;
}

export async function run(): Promise<void> {
  const review = pod4k();
  const text = JSON.stringify(review);
  const compiled = policies();
  const reviewOf = async (reviewText: string) => {
    const parsed = JSON.parse(reviewText) as { request: { object: JsonValue } & JsonObject };
    const result = await runKyvernoPolicies(compiled, { request: parsed.request as never, namespaceLabels: {} });
    return JSON.stringify(createPatch(parsed.request.object, result.object));
  };
  const once = () => reviewOf(text);
  const check = await runKyvernoPolicies(compiled, { request: review.request, namespaceLabels: {} });
  const rules = check.policies.flatMap((p) => p.rules);
  const applied = rules.filter((r) => r.status === 'applied').length;
  if (rules.length !== 10 || applied !== 10) throw new Error(`bench setup: ${applied}/${rules.length} rules applied: ${JSON.stringify(rules)}`);
  // The same rules over 64 different Pods in turn, each against the parse+stringify of its own text.
  const varied = variedReviews(64);
  let nextBaseline = 0;
  let nextReview = 0;
  // The reviews and their baselines in alternation, so that the load of the moment weighs on all alike.
  const [baseline, stats, variedBaseline, variedStats] = await measureInterleaved(
    [() => JSON.stringify(JSON.parse(text)), once, () => JSON.stringify(JSON.parse(varied[nextBaseline++ % varied.length])), () => reviewOf(varied[nextReview++ % varied.length])],
    { minMillis: 3000, warmup: 500, minRounds: 500, batch: 1 },
  );
  table('kyverno: 4 KB Pod review against 10 mutate rules (parse → rules → reply patch text)', [
    {
      reviews: 'the same Pod',
      bytes: text.length,
      rules: 10,
      median: formatNs(stats.median),
      p99: formatNs(stats.p99),
      'parse+stringify': formatNs(baseline.median),
      ratio: (stats.median / baseline.median).toFixed(2),
    },
    {
      reviews: `${varied.length} different Pods in turn`,
      bytes: varied[0].length,
      rules: 10,
      median: formatNs(variedStats.median),
      p99: formatNs(variedStats.p99),
      'parse+stringify': formatNs(variedBaseline.median),
      ratio: (variedStats.median / variedBaseline.median).toFixed(2),
    },
  ]);
  recordGoal({
    id: 'kyverno-review-ratio',
    label: `Kyverno review, 10 mixed rules ÷ JSON.parse+stringify, ${runningNode()}`,
    value: stats.median / baseline.median,
    unit: '×',
    max: 3.5,
    command: 'npm run bench -- 35',
  });
}
