/**
 * A patchStrategicMerge whose overlay takes a list from the review (`containers: "{{
 * request.object.spec.containers }}"`) holds the review's anchors too, and a list with one had its anchors
 * stripped by respreading it into a call (`splice(0, n, ...kept)`): past some 120,000 elements V8 refused
 * the call and the rule failed with "failed to process the strategic merge overlay: Maximum call stack size
 * exceeded". Through the Kyverno engine's package export, with a value bound the result fits in.
 */
import { describe, expect, it } from 'vitest';
import { ReviewGuard } from '../../src/guard/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { pod, podRequest } from '../kyverno/helpers/requests.js';

const policy = () => {
  const compiled = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'self-merge', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      failurePolicy: 'Fail',
      rules: [
        {
          name: 'containers',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          mutate: { patchStrategicMerge: { spec: { containers: '{{ request.object.spec.containers }}' } } },
        },
      ],
    },
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  return compiled.policy;
};

/** A Pod of `n` containers, the sixth with an add-if-not-present anchor `+(tier): web`. */
function subject(n: number) {
  const p = pod('web', []);
  (p.spec as Record<string, unknown>).containers = Array.from({ length: n }, (_, i) => (i === 5 ? { name: `c${i}`, '+(tier)': 'web' } : { name: `c${i}` }));
  return p;
}

async function merged(n: number): Promise<{ status: string; message?: string; container5?: unknown; count?: number }> {
  const guard = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 64 << 20 });
  const result = await runKyvernoPolicies([policy()], { request: podRequest(subject(n)), guard });
  const rule = result.policies[0].rules[0];
  const containers = (result.object as { spec: { containers: unknown[] } }).spec.containers;
  return { status: result.policies[0].status, message: rule.message, container5: containers[5], count: containers.length };
}

describe('a strategic merge overlay holding a long list from the review, with an anchor in it', () => {
  it('merges 200,000 containers as it merges 10', async () => {
    const small = await merged(10);
    expect(small.status).not.toBe('error');
    const large = await merged(200_000);
    expect(large.message ?? '').not.toMatch(/Maximum call stack/);
    expect(large.status).toBe(small.status);
    expect(large.container5).toEqual(small.container5);
    expect(large.count).toBe(200_000);
  });
});
