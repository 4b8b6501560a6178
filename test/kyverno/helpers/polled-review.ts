/**
 * A Kyverno ClusterPolicy run on a Pod through answerReview, counting the guard's polls (one per 256 ticks
 * of the engine's walks): the work-counting tests check how that count grows with the input, not time.
 */
import { expect } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/json/index.js';
import { applyJsonPatch } from '../../../src/jsonpatch/index.js';
import { buildPolicySet, parseDocuments } from '../../../src/policyset/index.js';
import { answerReview } from '../../../src/server/index.js';
import { reviewOf } from '../../server/helpers.js';

/** A ClusterPolicy of one rule matching Pods, whose mutate block is `mutate`. */
export function podPolicy(mutate: JsonObject): string {
  return JSON.stringify({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p' },
    spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate }] },
  });
}

type Reply = { response: { allowed: boolean; patch?: string; status?: { message?: string } } };

/** The reply's patch for a Pod of `spec` (admitted, or the test fails), and the guard's polls. */
export async function polledReview(policyText: string, spec: JsonObject): Promise<{ object: JsonObject; patch: unknown[]; polls: number }> {
  const set = buildPolicySet(parseDocuments('p.json', policyText));
  expect(set.problems).toEqual([]);
  const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec };
  let polls = 0;
  const answer = await answerReview(reviewOf(object) as JsonValue, set, {
    deadlineMs: 600_000,
    isCancelled: () => {
      polls++;
      return false;
    },
  });
  const reply = ('body' in answer ? answer.body : answer) as unknown as Reply;
  expect(reply.response.allowed, reply.response.status?.message).toBe(true);
  const patch = JSON.parse(Buffer.from(reply.response.patch ?? 'W10=', 'base64').toString('utf8')) as unknown[];
  return { object, patch, polls };
}

/** The Pod the policy makes of `spec`, and the guard's polls. */
export async function polledPod(policyText: string, spec: JsonObject): Promise<{ pod: JsonObject; polls: number }> {
  const { object, patch, polls } = await polledReview(policyText, spec);
  const applied = applyJsonPatch(object as JsonValue, patch);
  if (!applied.ok) throw new Error('the reply patch does not apply');
  return { pod: applied.doc as JsonObject, polls };
}
