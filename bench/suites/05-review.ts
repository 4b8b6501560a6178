/**
 * One in-process review, end to end through the app's `fetch` (routing, bounded body read, JSON parse,
 * validation, evaluation, diff, base64 reply): a 4 KB Pod against 10 MutatingAdmissionPolicies — the 4
 * bundled ones plus 6 generated here, mixed JSONPatch and ApplyConfiguration, with matchConditions and
 * variables. Reported with its ratio to `JSON.parse` + `JSON.stringify` of the same review, measured in
 * the same run.
 */
import { pod4k } from '../fixtures.js';
import { recordGoal } from '../goals.js';
import { runningNode } from '../nodes.js';
import { formatNs, measureAsync, measureAsyncPair, measureInterleaved, table, type Stats } from '../lib.js';
import { lightApp } from '../light.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { loadPolicies } from '../../src/cli/load.js';
import { nodeCliIO } from '../../src/cli/node-io.js';
import { answerReviewText, createApp, fixedPolicySet, jsonLineLogger } from '../../src/server/index.js';

/** Six more policies: even ones JSONPatch, odd ones ApplyConfiguration; each with a variable and a matchCondition. */
export function generatedPolicies(): string {
  const docs: string[] = [];
  for (let i = 0; i < 6; i++) {
    const name = `bench-${i}`;
    const mutation =
      i % 2 === 0
        ? `    - patchType: JSONPatch
      jsonPatch:
        expression: >
          [JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("bench.amender.dev/${i}"), value: variables.owner}]`
        : `    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{metadata: Object.metadata{labels: {"bench-${i}": variables.owner}}}`;
    docs.push(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}]
  variables:
    - name: owner
      expression: 'has(object.metadata.labels) && "team" in object.metadata.labels ? object.metadata.labels["team"] : "none"'
  matchConditions:
    - name: has-containers
      expression: 'size(object.spec.containers) > 0 && object.metadata.namespace != "kube-system"'
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
${mutation}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec:
  policyName: ${name}
`);
  }
  return docs.join('---\n');
}

/** Each measured review path: 1.5 s after 300 warm-up calls, at least 200 samples. */
const REVIEW_SAMPLING = { minMillis: 1500, warmup: 300, minSamples: 200 };
/** The review against its baseline: 2 s of rounds of one call of each, at least 500 rounds (a call is short enough that few samples are cut by the scheduler on a busy machine). */
const REVIEW_ROUNDS = { minMillis: 2000, warmup: 300, minRounds: 500, batch: 1 };

export async function run(): Promise<void> {
  const bundled = await loadPolicies(['bundled'], nodeCliIO());
  const set = buildPolicySet([...bundled.parsed, parseDocuments('bench.yaml', generatedPolicies())]);
  const review = pod4k();
  const text = JSON.stringify(review);
  const { app } = createApp({ policies: fixedPolicySet(set, 'bench') });
  // As the API server sends it: with its Content-Length.
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };

  // Check the path does what it should before timing it.
  const probe = await app.fetch(new Request('http://bench/mutate', { method: 'POST', body: text, headers }));
  const reply = (await probe.json()) as { response: { allowed: boolean; patch?: string; status?: { message: string } } };
  if (!reply.response.allowed) throw new Error(`bench review was denied: ${reply.response.status?.message}`);

  // The review and its baseline in alternation, so that the load of the moment weighs on both alike.
  const [baseline, core] = await measureInterleaved([() => JSON.stringify(JSON.parse(text)), () => answerReviewText(text, set, 1000)], REVIEW_ROUNDS);
  const viaFetch = await measureAsync(async () => {
    const res = await app.fetch(new Request('http://bench/mutate', { method: 'POST', body: text, headers }));
    await res.text();
  }, REVIEW_SAMPLING);
  const row = (what: string, s: Stats) => ({
    what,
    median: formatNs(s.median),
    p99: formatNs(s.p99),
    'median / baseline': (s.median / baseline.median).toFixed(1) + '×',
  });
  table(`review: 4 KB Pod (${text.length} B), 10 MAP policies (${set.counts.problems} load problems), patched: ${reply.response.patch ? 'yes' : 'no'}`, [
    row('JSON.parse + JSON.stringify (baseline)', baseline),
    row('answerReviewText (parse, validate, evaluate, reply)', core),
    row('app.fetch POST /mutate (+ routing, body read, Response)', viaFetch),
  ]);
  recordGoal({
    id: 'map-review-ratio',
    label: `MAP review, 10 policies, 4 KB Pod ÷ JSON.parse+stringify, ${runningNode()}`,
    value: core.median / baseline.median,
    unit: '×',
    max: 2.5,
    command: 'npm run bench -- 05',
  });
  // What a request costs outside the review: the Request built by the caller, routing, body read, logging,
  // metrics, the Response and reading it back. Measured through the app as the Node server and Lambda run
  // it (bench/light.ts): their light Request, Response and Headers, not undici's, which no deployment hands
  // the app (Workers has its own). The access log is on (a JSON-line logger writing nowhere) in its own app,
  // as a server runs it. Alternating with the review alone, so both see the same load; the figure is the
  // median difference.
  const light = await lightApp();
  // The cluster routes mounted, with no cluster: the route table the Node server and Lambda serve; and the
  // Node server's body budget (its default under a 512 MiB limit), which every review takes from and gives back.
  const clusterRoutes = { clusters: { get: () => undefined }, bodyBudget: new light.BodyBudget(32 * 2 ** 20) };
  const lightSet = light.buildPolicySet([...bundled.parsed, light.parseDocuments('bench.yaml', generatedPolicies())]);
  const lightLogged = light.createApp({ policies: light.fixedPolicySet(lightSet, 'bench'), logger: light.jsonLineLogger(() => {}), ...clusterRoutes }).app;
  const lightRequest = () => new light.LambdaRequest('http://bench/mutate', { method: 'POST', body: text, headers }) as unknown as Request;
  const paired = await measureAsyncPair(
    () => light.answerReviewText(text, lightSet, 1000),
    async () => {
      const res = await lightLogged.fetch(lightRequest());
      await res.text();
    },
    { ...REVIEW_SAMPLING, batch: 5 },
  );
  const overhead = paired.difference.median / 1000;
  // The floor under that figure: a trivial Hono handler (reads the body, answers fixed JSON), the same way.
  const trivialAnswer = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'x', allowed: true } };
  const lightTrivial = new light.Hono();
  lightTrivial.post('/mutate', async (c) => {
    await c.req.arrayBuffer();
    return c.json(trivialAnswer);
  });
  const floor = await measureAsync(async () => {
    const res = await lightTrivial.fetch(lightRequest());
    await res.text();
  }, REVIEW_SAMPLING);
  // The trivial handler measured as the app is: after a review, paired with the review alone. A review over
  // a 4 KB Pod leaves the caches to itself, so whatever runs next pays to bring its own code and data back;
  // this is the floor of the goal row's kind of figure, which the trivial handler's own figure is not.
  const trivialAfterReview = await measureAsyncPair(
    () => light.answerReviewText(text, lightSet, 1000),
    async () => {
      await light.answerReviewText(text, lightSet, 1000);
      const res = await lightTrivial.fetch(lightRequest());
      await res.text();
    },
    { ...REVIEW_SAMPLING, batch: 5 },
  );
  // The app itself, the same way (one request after another, its code and data warm), with a reviewer that
  // hands back this review's answer at once: what the overhead would be without the review's own use of
  // the caches between two requests.
  const lightAnswer = await light.answerReviewText(text, lightSet, 1000);
  const lightFixed = light.createApp({ policies: light.fixedPolicySet(lightSet, 'bench'), logger: light.jsonLineLogger(() => {}), reviewer: async () => lightAnswer, ...clusterRoutes }).app;
  const appAlone = await measureAsync(async () => {
    const res = await lightFixed.fetch(lightRequest());
    await res.text();
  }, REVIEW_SAMPLING);
  // The same pair with undici's Request and Response (the objects a caller of app.fetch gets from Node's
  // globals), for comparison with the figures before the adapters stopped using them.
  const logged = createApp({ policies: fixedPolicySet(set, 'bench'), logger: jsonLineLogger(() => {}), ...clusterRoutes }).app;
  const pairedUndici = await measureAsyncPair(
    () => answerReviewText(text, set, 1000),
    async () => {
      const res = await logged.fetch(new Request('http://bench/mutate', { method: 'POST', body: text, headers }));
      await res.text();
    },
    { ...REVIEW_SAMPLING, batch: 5 },
  );
  console.log(
    `request overhead (app.fetch with the access log − answerReviewText, measured alternately, the light Request/Response the Node server and Lambda hand the app): ` +
      `median ${formatNs(paired.difference.median)} (review ${formatNs(paired.a.median)}, through app.fetch ${formatNs(paired.b.median)}); ` +
      `a trivial Hono handler's whole app.fetch, one request after another: ${formatNs(floor.median)}; the app the same way, its reviewer answering at once: ${formatNs(appAlone.median)}; ` +
      `the trivial handler after a review, measured as the overhead is (paired with the review alone): ${formatNs(trivialAfterReview.difference.median)}; ` +
      `the same overhead with undici's Request/Response: ${formatNs(pairedUndici.difference.median)}`,
  );
  recordGoal({
    id: 'fetch-overhead',
    label: `in-process app.fetch POST /mutate − answerReviewText (median; the light Request/Response of the Node server and Lambda), ${runningNode()}`,
    value: overhead,
    unit: 'µs',
    max: 25,
    command: 'npm run bench -- 05',
  });
}
