/**
 * What a review worker tells the main thread about each policy (packed for the crossing, pool/wire.ts)
 * gives the same per-policy metrics and failure logs as the in-process evaluation: outcomes mutated,
 * skipped, errors kept and ignored, a size bound, Kyverno rules with their statuses, MAP bindings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewPool, workerEntryBeside } from '../../src/adapters/pool/index.js';
import { parseDocuments, buildPolicySet, type PolicySetState } from '../../src/policyset/index.js';
import { createApp, type LogRecord } from '../../src/server/index.js';
import { ROOT } from './built.js';

const MATCH_PODS = 'matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}';

function map(name: string, failurePolicy: string, mutation: string, extra = ''): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  ${MATCH_PODS}
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  ${extra}
  mutations: [${mutation}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}-binding}
spec: {policyName: ${name}}
---
`;
}

const LABEL = `{patchType: ApplyConfiguration, applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"team": "shop"}}}'}}`;
const POLICIES =
  map('label-team', 'Fail', LABEL) +
  map('never-matches', 'Fail', LABEL, "matchConditions: [{name: never, expression: 'false'}]") +
  map('broken-ignored', 'Ignore', `{patchType: JSONPatch, jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels/x", value: object.spec.nothing}]'}}`) +
  map('grow-text', 'Ignore', `{patchType: JSONPatch, jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"grown": "${'a'.repeat(200)}".replace("a", "${'a'.repeat(50)}")}}]'}}`) +
  `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: owner
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  background: false
  rules:
    - name: add-owner
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {owner: shop}}}}
    - name: copy-missing
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate:
        patchesJson6902: |-
          - op: add
            path: /metadata/annotations/copied
            value: '{{ abs(request.object.metadata.annotations."missing") }}'
`;

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');

let pool: ReviewPool;
beforeAll(async () => {
  pool = new ReviewPool({ workers: 1, heapMb: 256, graceMs: 200, queueLimit: 8, entry: await workerEntryBeside(import.meta.url) });
});
afterAll(() => pool.close());

/** Series about policies, durations left out (their sums differ between two runs; their counts do not). */
function policySeries(text: string): string[] {
  return text.split('\n').filter((l) => /^amender_(policy|kyverno_rule)_/.test(l) && !/_(sum|bucket)\{/.test(l)).sort();
}

async function run(viaPool: boolean): Promise<{ series: string[]; logs: string[] }> {
  const parsed = parseDocuments('policies.yaml', POLICIES);
  const state: PolicySetState = { set: buildPolicySet([parsed]), inputs: [parsed], generation: 1, source: 'test', sourceErrors: [] };
  const logs: LogRecord[] = [];
  const app = createApp({ policies: () => state, logger: (r) => logs.push(r), limits: { maxValueBytes: 4096 }, ...(viaPool ? { reviewer: pool.reviewer } : {}) });
  // Two one at a time, then six at once (they cross in one batch, their answers packed in one message,
  // wire.ts): each with its own uid, every third an UPDATE that only the Kyverno policy matches, so that
  // an outcome read from another answer's numbers would show in the failure logs.
  const send = (i: number) => {
    const body = (i % 3 === 2 ? REVIEW.replace('"operation": "CREATE"', '"operation": "UPDATE"') : REVIEW).replace(/"uid": "[^"]*"/, `"uid": "uid-${i}"`);
    return app.app.fetch(new Request('http://x/mutate', { method: 'POST', body, headers: { 'content-type': 'application/json' } }));
  };
  for (let i = 0; i < 2; i++) expect((await send(i)).status).toBe(200);
  for (const reply of await Promise.all([2, 3, 4, 5, 6, 7].map(send))) expect(reply.status).toBe(200);
  const failures = logs.filter((r) => r.msg !== 'request').map(({ durationMs, time, ...rest }) => (expect(typeof durationMs).toBe('number'), rest));
  return { series: policySeries(app.metrics.registry.render()), logs: failures.map((r) => JSON.stringify(r)).sort() };
}

describe('policy outcomes from a review worker', () => {
  it('give the metrics and failure logs the in-process evaluation gives', { timeout: 60_000 }, async () => {
    const inProcess = await run(false);
    const pooled = await run(true);
    // The scenario covers what crosses: every outcome kind, a binding, Kyverno rules and their statuses.
    const text = inProcess.series.join('\n');
    for (const outcome of ['mutated', 'skipped', 'error_ignored', 'size']) expect(text).toContain(`outcome="${outcome}"`);
    expect(text).toMatch(/amender_kyverno_rule_evaluations_total\{policy="ClusterPolicy\/owner",policy_set="default",rule="add-owner",status="applied"\} 8/);
    expect(text).toMatch(/rule="copy-missing",status="error"\} 8/);
    const logged = inProcess.logs.map((line) => JSON.parse(line) as LogRecord);
    expect(logged.some((r) => r.binding === 'grow-text-binding' && r.outcome === 'size')).toBe(true);
    expect(logged.some((r) => r.engine === 'Kyverno' && Array.isArray(r.rules))).toBe(true);
    expect(new Set(logged.map((r) => r.uid)).size).toBe(8);

    expect(pooled.series).toEqual(inProcess.series);
    expect(pooled.logs).toEqual(inProcess.logs);
  });
});
