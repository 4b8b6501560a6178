/**
 * A list item of a patchStrategicMerge overlay whose conditions sit at its top (`- (name): c1`) is checked
 * against each resource item on the item itself: a resource item the conditions reject costs no copy of
 * the overlay item, no walk of it and no thrown ConditionFailure. Before, each of the n × m pairs (n
 * overlay items, m resource items; a foreach over n containers whose overlay names its element: n
 * elements × n containers) copied and walked the item and threw an Error with its stack trace, about 3 µs
 * a pair: 1,000 containers took 3.3 s, 2,000 went past the review's 8 s deadline. The checks themselves
 * (n × m) are what condition anchors mean, but a condition whose value is literal text is met by the items
 * holding that text, which an index of the list finds: the work counted here, through the guard's polls
 * (one per 256 ticks of the walk, the checks and the merge included), grows with n + m.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { podPolicy, polledReview } from './helpers/polled-review.js';

const policy = (overlay: JsonValue): string => podPolicy({ patchStrategicMerge: overlay });
const run = async (policyText: string, containers: JsonObject[]): Promise<{ patch: unknown[]; polls: number }> => {
  const { patch, polls } = await polledReview(policyText, { containers });
  return { patch, polls };
};

describe('condition anchors on list items', () => {
  it('check each resource item without walking the overlay item: the work grows with the lists, not their product', async () => {
    const n = 400;
    const containers = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `img${i}` }));
    const items = Array.from({ length: n }, (_, i) => ({ '(name)': `c${i}`, securityContext: { runAsNonRoot: true } }));
    const { patch, polls } = await run(policy({ spec: { containers: items } }), containers);
    expect(patch).toEqual(containers.map((_, i) => ({ op: 'add', path: `/spec/containers/${i}/securityContext`, value: { runAsNonRoot: true } })));
    // 400 × 400 walks of the item took 625 polls (160,000 ticks); the merge of 400 items takes about 30.
    // The checks of the pairs tick the guard too (condition-check-guard.test.ts): 1,276 polls while each
    // item was checked against every container; a literal condition (`c7`) now finds its container
    // through an index of the list (condition-candidates.ts), 400 + 400 steps: about 30 polls.
    expect(polls).toBeLessThan(100);
  });

  it('give what the walk gives where it decides more: +() in a condition, a condition below the top', async () => {
    const containers: JsonObject[] = [
      { name: 'a', image: 'nginx', securityContext: { runAsUser: 0 } },
      { name: 'b', image: 'redis' },
    ];
    // A condition holding +() only asks for the key; the anchors then apply inside.
    const plusInCondition = await run(policy({ spec: { containers: [{ '(securityContext)': { '+(runAsNonRoot)': true }, image: 'x' }] } }), containers);
    expect(plusInCondition.patch).toEqual([
      { op: 'replace', path: '/spec/containers/0/image', value: 'x' },
      { op: 'add', path: '/spec/containers/0/securityContext/runAsNonRoot', value: true },
    ]);
    // A failing condition below the item's top rejects the item as before.
    const nested = await run(policy({ spec: { containers: [{ '(image)': 'redis', securityContext: { '(runAsUser)': 0 }, imagePullPolicy: 'Always' }] } }), containers);
    expect(nested.patch).toEqual([]);
    const top = await run(policy({ spec: { containers: [{ '(image)': 'redis', imagePullPolicy: 'Always' }] } }), containers);
    // The item the overlay names leads the list afterwards (kyaml prepends it): b, then a.
    expect(top.patch).toEqual([
      { op: 'replace', path: '/spec/containers/0/name', value: 'b' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'redis' },
      { op: 'remove', path: '/spec/containers/0/securityContext' },
      { op: 'add', path: '/spec/containers/0/imagePullPolicy', value: 'Always' },
      { op: 'replace', path: '/spec/containers/1/name', value: 'a' },
      { op: 'replace', path: '/spec/containers/1/image', value: 'nginx' },
      { op: 'add', path: '/spec/containers/1/securityContext', value: { runAsUser: 0 } },
    ]);
  });
});
