/**
 * Kyverno's `In` operator families with a list on both sides (`{{ request.object.spec.containers[].name }}`
 * AnyIn a list of the same length): without wildcards the work grows with the lists' lengths, not with
 * their product (4,000 names against 4,000 images took 0.8 s, 8,000 ran into the deadline). Work is
 * counted as the clock reads of the review guard (one per 256 comparisons), not timed; results are
 * compared with the pairwise definition (a key is in when some value matches it, wildcards both ways).
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { wildcardMatch } from '../../src/go/index.js';
import { ReviewGuard } from '../../src/guard/index.js';
import type { JsonObject } from '../../src/json/index.js';
import { evaluateOperator, normalizeOperator } from '../../src/kyverno/match/operators.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';

const OPERATORS = ['AnyIn', 'AllIn', 'AnyNotIn', 'AllNotIn'] as const;

function policy(operator: string): string {
  return `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: names-in-images
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
  - name: r
    match: {any: [{resources: {kinds: [Pod]}}]}
    preconditions:
      all:
      - key: "{{ request.object.spec.containers[].name }}"
        operator: ${operator}
        value: "{{ request.object.spec.containers[].image }}"
    mutate:
      patchStrategicMerge:
        metadata:
          labels: {matched: "yes"}
`;
}

/** Containers named c0…c(n-1) whose images are the same names, reversed (every name is some image). */
function pod(n: number): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `c${n - 1 - i}` })) },
  };
}

async function review(operator: string, n: number): Promise<{ clockReads: number; mutated: boolean }> {
  const set = buildPolicySet([parseDocuments('policy.yaml', policy(operator))]);
  expect(set.problems).toEqual([]);
  let clockReads = 0;
  const guard = new ReviewGuard({ deadlineMs: Infinity, maxValueBytes: 1 << 30, now: () => ++clockReads });
  const result = await evaluate(set, podRequest(pod(n)), { guard });
  if (!result.allowed) throw new Error(JSON.stringify(result.status));
  return { clockReads, mutated: result.patch.length > 0 };
}

describe('In operators with lists on both sides', () => {
  it('cost work in proportion to the lists without wildcards, with the same outcome', async () => {
    for (const operator of OPERATORS) {
      const small = await review(operator, 1000);
      const large = await review(operator, 4000);
      // Four times the items: about four times the work (every pair: sixteen times).
      expect(large.clockReads / small.clockReads, operator).toBeLessThan(6);
      const holds = operator === 'AnyIn' || operator === 'AllIn';
      expect([small.mutated, large.mutated], operator).toEqual([holds, holds]);
    }
  });

  it('agree with the pairwise definition on lists mixing literals and wildcards on both sides', () => {
    let seed = 7;
    const random = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    const word = () => ['a', 'b', 'ab', 'ba', 'a*', '*b', '?', 'a?', '*', 'abc', 'b?c'][random(11)];
    const reference = (keys: string[], values: string[], quantifier: 'any' | 'all', negated: boolean) => {
      const found = keys.map((k) => values.some((v) => wildcardMatch(k, v) || wildcardMatch(v, k)));
      return quantifier === 'any' ? found.some((f) => f !== negated) : found.every((f) => f !== negated);
    };
    for (let round = 0; round < 300; round++) {
      // Long enough lists to take the indexed path (more than 256 pairs), with few wildcards or many.
      const keys = Array.from({ length: 10 + random(30) }, () => (random(3) === 0 ? word() : `k${random(40)}`));
      const values = Array.from({ length: 20 + random(30) }, () => (random(3) === 0 ? word() : `k${random(40)}`));
      for (const operator of OPERATORS) {
        const name = normalizeOperator(operator)!;
        const quantifier = operator.startsWith('Any') ? 'any' : 'all';
        const expected = reference(keys, values, quantifier, operator.includes('Not'));
        expect(evaluateOperator(name, keys, values), `${operator} ${JSON.stringify(keys)} ${JSON.stringify(values)}`).toBe(expected);
      }
    }
  });
});
