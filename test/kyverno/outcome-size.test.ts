/**
 * A rule's outcome when the engine knows the size of its input (the previous rule's output was measured):
 * a different size answers `applied` without comparing, an equal size still compares, so a rule that
 * builds a new but equal resource is skipped and one that changes a value to another of the same size
 * is applied.
 */
import { describe, expect, it } from 'vitest';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

const replaceTeam = (value: string) => ({ mutate: { patchesJson6902: `- op: replace\n  path: /metadata/labels/team\n  value: ${value}` } });

const policies = compiled(
  clusterPolicy('outcomes', [
    { name: 'label', mutate: { patchStrategicMerge: { metadata: { labels: { team: 'a' } } } } },
    { name: 'same-size', ...replaceTeam('b') },
    { name: 'same-value', ...replaceTeam('b') },
    { name: 'larger', ...replaceTeam('bc') },
    { name: 'smaller-merge', mutate: { patchStrategicMerge: { metadata: { labels: { team: 'd' } } } } },
    { name: 'equal-merge', mutate: { patchStrategicMerge: { metadata: { labels: { team: 'd' } } } } },
  ]),
);

describe('a rule outcome after a measured rule', () => {
  it('is applied when the value changed, whatever its size, and skipped when it did not', async () => {
    const result = await runKyvernoPolicies([policies], { request: podRequest(pod('web', ['web'])) });
    expect(result.policies[0].rules.map((r) => [r.rule, r.status, r.message])).toEqual([
      ['label', 'applied', 'mutated Pod/web in namespace default'],
      ['same-size', 'applied', 'mutated Pod/web in namespace default'],
      ['same-value', 'skipped', 'no patches applied'],
      ['larger', 'applied', 'mutated Pod/web in namespace default'],
      ['smaller-merge', 'applied', 'mutated Pod/web in namespace default'],
      ['equal-merge', 'skipped', 'no patches applied'],
    ]);
    expect(result.object).toMatchObject({ metadata: { labels: { team: 'd' } } });
  });
});
