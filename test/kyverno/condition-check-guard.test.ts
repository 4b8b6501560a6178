/**
 * The checks of condition anchors on list items are work the review's deadline guard sees. Kyverno tries
 * each overlay list item against every resource item (strategicPreprocessing.go processListOfMaps): n × m
 * pairs, n² in a foreach over n containers, and a condition whose value is a pattern tree walks the
 * resource's subtree for each pair. Those checks used to tick no guard: the deadline (or a cancellation)
 * was read only between foreach elements and rules, so one overlay over a large list ran to its end
 * whatever the deadline. Each pair tried, and each pattern node compared, now ticks the guard (one poll
 * per 256 ticks). Counted through the polls: a foreach over 2n containers has 4n² pairs, twice the
 * 2 × n² of two foreach runs over n, while its other work only doubles; the excess is the pairs' work.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { answerReview } from '../../src/server/index.js';
import { reviewOf } from '../server/helpers.js';
import { podPolicy, polledReview } from './helpers/polled-review.js';

const containers = (n: number, extra: (i: number) => JsonObject = () => ({})) =>
  Array.from({ length: n }, (_, i): JsonObject => ({ name: `c${i}`, image: `img${i}`, ...extra(i) }));

/** A foreach over the containers whose overlay item has these top conditions (never all met). */
const foreachPolicy = (conditions: JsonObject) =>
  podPolicy({
    foreach: [{ list: 'request.object.spec.containers', patchStrategicMerge: { spec: { containers: [{ ...conditions, securityContext: { runAsNonRoot: true } }] } } }],
  });

/** Polls at 2n beyond twice those at n: the work that grows with n². */
async function quadraticExcess(policyText: string, spec: (n: number) => JsonObject, n: number): Promise<number> {
  const once = await polledReview(policyText, spec(n));
  const twice = await polledReview(policyText, spec(2 * n));
  expect(once.patch).toEqual([]);
  expect(twice.patch).toEqual([]);
  return twice.polls - 2 * once.polls;
}

describe('condition anchors on list items are checked under the review guard', () => {
  it('each container a foreach element tries its wildcard condition on is polled', async () => {
    const n = 400;
    const excess = await quadraticExcess(foreachPolicy({ '(image)': 'none-*' }), (k) => ({ containers: containers(k) }), n);
    // 2n² more pairs, each at least one tick (two: the pair, the pattern). Before: about 0.
    expect(excess).toBeGreaterThanOrEqual((2 * n * n) / 256);
  });

  it('a condition whose pattern walks a list of each container ticks per item compared', async () => {
    const n = 100;
    const m = 20;
    const env = Array.from({ length: m }, (_, i) => ({ name: `v${i}`, value: 'x' }));
    // `(env)` holds for every container (each env item is compared), `(image)` for none (a wildcard: a
    // literal image would be looked up in an index of the list, not checked on each container).
    const p = foreachPolicy({ '(env)': [{ name: '?*' }], '(image)': 'none-*' });
    const excess = await quadraticExcess(p, (k) => ({ containers: containers(k, () => ({ env })) }), n);
    // 2n² more pairs, each comparing m env items. Before: about 0.
    expect(excess).toBeGreaterThanOrEqual((2 * n * n * m) / 256);
  });
});

describe('a review cancelled while its condition checks run', () => {
  it('stops at the next poll, not after the checks', async () => {
    // 50 wildcard items × 4,000 containers: 200,000 pairs in one overlay, with no foreach step between.
    const items = Array.from({ length: 50 }, (_, i) => ({ '(image)': `none${i}-*`, securityContext: { runAsNonRoot: true } }));
    const set = buildPolicySet(parseDocuments('p.json', podPolicy({ patchStrategicMerge: { spec: { containers: items } } })));
    const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: containers(4_000) } };
    let polls = 0;
    const answer = await answerReview(reviewOf(object) as JsonValue, set, { deadlineMs: 600_000, isCancelled: () => ++polls > 100 });
    // Before, the checks polled nothing: the whole review took fewer than 100 polls and was answered.
    expect(answer).toMatchObject({ status: 499, outcome: 'abandoned' });
    expect(polls).toBe(101);
  });
});
