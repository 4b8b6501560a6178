/**
 * The size bound of a rule's output (src/kyverno/measure.ts) counts what the strategic merge's
 * normalizing walk already measured: those sizes must be the measure's own, so a Pod exactly at the bound
 * passes and one byte under it fails with the same size in the message. The expected sizes come from the
 * estimate's documented formula, written out here apart from the engine.
 */
import { describe, expect, it } from 'vitest';
import { ReviewGuard } from '../../src/guard/index.js';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, podRequest } from './helpers/requests.js';

/** Strings: length + 2; integers: digits and sign; other numbers 8; booleans 5; null 4; maps and lists as written. */
function estimate(v: JsonValue): number {
  if (typeof v === 'string') return v.length + 2;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(Math.abs(v)).toString().length + (v < 0 ? 1 : 0) : 8;
  if (typeof v === 'boolean') return 5;
  if (v === null) return 4;
  if (Array.isArray(v)) return v.reduce<number>((n, x) => n + estimate(x) + 1, 2);
  return Object.entries(v).reduce<number>((n, [k, x]) => n + k.length + 3 + estimate(x), 2);
}

/** A Pod with plain maps, keyed lists, unkeyed lists of maps and scalars, numbers of every kind, and nulls the merge drops. */
function richPod(): JsonObject {
  const container = (name: string, port: number): JsonObject => ({
    name,
    image: `registry.example.com/${name}:1.0`,
    args: ['--port', String(port), '--verbose'],
    ports: [{ containerPort: port, protocol: 'TCP' }, { containerPort: -1 * port, protocol: 'UDP', name: null }],
    env: [{ name: 'A', value: 'x' }, { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
    resources: { limits: { cpu: 0.5, memory: '256Mi' }, requests: { cpu: '100m' } },
    securityContext: { runAsNonRoot: true, runAsUser: 1000, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } },
    livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10, timeoutSeconds: null },
  });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: 'front' }, annotations: { 'a/b': 'ü≠' } },
    spec: {
      containers: [container('web', 8080), container('sidecar', 15001)],
      tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 3600 }],
      volumes: [{ name: 'config', configMap: { name: 'cfg', defaultMode: 420 } }],
      priority: 1e21,
      nodeSelector: null,
    },
  };
}

const policies = compiled(
  clusterPolicy('sizes', [
    { name: 'root', mutate: { patchStrategicMerge: { spec: { containers: [{ '(name)': '*', securityContext: { '+(runAsNonRoot)': true, '+(seccompProfile)': { type: 'RuntimeDefault' } } }] } } } },
    { name: 'label', mutate: { patchStrategicMerge: { metadata: { labels: { team: 'a' } } } } },
  ]),
);

async function review(maxValueBytes: number) {
  const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes });
  return runKyvernoPolicies([policies], { request: podRequest(richPod()), guard });
}

describe('the size bound of a strategic merge rule, with the sizes the merge measured', () => {
  it('passes at exactly the size of each rule output and fails one byte under, naming that size', async () => {
    // Unbounded first: what each rule builds.
    const free = await runKyvernoPolicies([policies], { request: podRequest(richPod()) });
    expect(free.policies[0].rules.map((r) => r.status)).toEqual(['applied', 'applied']);
    const final = estimate(free.object);
    // The first rule's output is smaller than the second's (a label added): the bound decides the second.
    const atBound = await review(final);
    expect(atBound.policies[0].rules.map((r) => r.status)).toEqual(['applied', 'applied']);
    expect(atBound.object).toEqual(free.object);
    const under = await review(final - 1);
    const second = under.policies[0].rules[1];
    expect(second.status).toBe('error');
    expect(second.message).toBe(`the mutated resource would be ${final} bytes, over the limit of ${final - 1} per value`);
  });

  it('the first rule alone: the merge result measured the same way', async () => {
    const free = await runKyvernoPolicies([policies], { request: podRequest(richPod()) });
    const pod = free.object as JsonObject;
    const labels = (pod.metadata as JsonObject).labels as JsonObject;
    // The first rule's output is the final one without the label the second added.
    const first = estimate(pod) - ('team'.length + 3 + estimate(labels.team));
    const under = await review(first - 1);
    expect(under.policies[0].rules[0]).toMatchObject({
      status: 'error',
      message: `the mutated resource would be ${first} bytes, over the limit of ${first - 1} per value`,
    });
  });
});
