/**
 * `$(…)` references insert strings of the policy's own, and a string may hold many of them: before, a
 * few thousand references to one long annotation value built hundreds of megabytes — when the policy set
 * was loaded (Kyverno's invalid-variables check expands references first) and again at every admission,
 * where the variable scan that follows flattened it (1.2 GB of memory for 2,000 references to 200 KB).
 * Now the inserted text is counted against the review's value bound: at admission the rule fails with a
 * clear message, answered by its failurePolicy while the other policies apply; at load the policy is kept
 * as Kyverno keeps it (past the bound its variables are not checked there).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';
import { answerReview } from '../../src/server/index.js';
import type { JsonValue } from '../../src/json/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const LONG = 'x'.repeat(200_000);
/**
 * 3,000 references to LONG: 600 million characters, more than a JavaScript string may hold. Spaces
 * part them: Kyverno's reference pattern runs greedily to the last `)` before a space.
 */
const REFERENCES = '$(../long) '.repeat(3000);

const bomb = clusterPolicy('a-references', [{ name: 'bomb', mutate: { patchStrategicMerge: { metadata: { annotations: { long: LONG, copies: REFERENCES } } } } }], { failurePolicy: 'Ignore' });
const healthy = clusterPolicy('b-label', [{ name: 'label', mutate: { patchStrategicMerge: { metadata: { labels: { owner: 'team-a' } } } } }]);

describe('text inserted by $() references is bounded', () => {
  it('at admission: the rule fails naming the bound, the next policy applies', async () => {
    const result = await runKyvernoPolicies([compiled(bomb), compiled(healthy)], { request: podRequest(pod('web', ['app'])) });
    const [references, label] = result.policies;
    expect(references).toMatchObject({ policy: 'ClusterPolicy/a-references', status: 'error' });
    expect(references.rules[0].message).toMatch(/^the text inserted by \$\(\) references would be \d+ bytes, over the limit of \d+ per value$/);
    expect(label).toMatchObject({ policy: 'ClusterPolicy/b-label', status: 'applied' });
    expect((result.object as JsonObject).metadata).toMatchObject({ labels: { owner: 'team-a' } });
    expect(result.rejection).toBeUndefined();
  });

  it('at load: the policy is kept, and a review is answered the same way', async () => {
    const yaml = `---\n${JSON.stringify(bomb)}\n---\n${JSON.stringify(healthy)}\n`;
    const set = policySetFrom(yaml);
    expect(set.problems.filter((p) => p.effect === 'ignored')).toEqual([]);
    const reply = (await answerReview(reviewOf(pod('web', ['app'])) as JsonValue, set)).body as unknown as {
      response: { allowed: boolean; patch?: string; auditAnnotations?: Record<string, string> };
    };
    expect(reply.response.allowed).toBe(true);
    const outcomes = JSON.parse(reply.response.auditAnnotations?.['kyverno-mutate'] ?? '[]') as { policy: string; status: string; message: string }[];
    expect(outcomes.map((o) => [o.policy, o.status])).toEqual([
      ['ClusterPolicy/a-references', 'error'],
      ['ClusterPolicy/b-label', 'applied'],
    ]);
    expect(outcomes[0].message).toContain('the text inserted by $() references');
  });

  it('references within the bound still resolve', async () => {
    const few = clusterPolicy('a-few', [{ name: 'few', mutate: { patchStrategicMerge: { metadata: { annotations: { long: LONG, copies: '$(../long) '.repeat(3) } } } } }]);
    const result = await runKyvernoPolicies([compiled(few)], { request: podRequest(pod('web', ['app'])) });
    expect(result.policies[0].status).toBe('applied');
    expect(((result.object as JsonObject).metadata as JsonObject).annotations).toEqual({ long: LONG, copies: `${LONG} `.repeat(3) });
  });
});
