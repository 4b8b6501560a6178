/**
 * A foreach whose strategic-merge overlay names its element with a condition anchor,
 * `(name): "{{ element.name }}"`, reads the resource's containers before every element's merge, so the
 * chain writes the lists it keeps aside first. It used to settle the chain there, which forgot those
 * lists: the element's merge then indexed the whole list again (every item's key tuple filed, every item
 * walked, the list tracked anew), n² work over n containers (2,000 containers: ~3.6 s, half of it that
 * re-indexing). The chain is now flushed (its arrays written, its lists kept under edit), and each
 * element's merge costs its own item. Kyverno then checks the condition against every container; the
 * literal name is met by exactly the container of that name, which the chain's index of the list by
 * name finds (condition-candidates.ts): no n checks per element either.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { podPolicy, polledPod } from './helpers/polled-review.js';

const policy = (foreach: JsonObject[]): string => podPolicy({ foreach });
const run = polledPod;

const containers = (n: number) => Array.from({ length: n }, (_, i): JsonObject => ({ name: `c${i}`, image: `img${i}` }));
const listOf = (pod: JsonObject) => (pod.spec as { containers: JsonObject[] }).containers;

describe('foreach strategic merges whose overlay names its element with a condition anchor', () => {
  it('edit the list kept aside: the work grows with the list', async () => {
    const p = policy([
      {
        list: 'request.object.spec.containers',
        patchStrategicMerge: { spec: { containers: [{ '(name)': '{{ element.name }}', securityContext: { runAsNonRoot: true } }] } },
      },
    ]);
    const at = async (n: number) => {
      const { pod, polls } = await run(p, { containers: containers(n) });
      const list = listOf(pod);
      // Descending (the default for merges): the original order is kept.
      expect(list.map((c) => c.name)).toEqual(containers(n).map((c) => c.name));
      expect(list.every((c) => (c.securityContext as JsonObject | undefined)?.runAsNonRoot === true)).toBe(true);
      return polls;
    };
    const small = await at(400);
    const large = await at(800);
    // Linear: about 3 polls per element at both sizes (1,236 and 2,469). Re-indexing the list per
    // element added about n²/256: 1,858 and 4,963 polls before; checking the condition on every container
    // (2n² ticks, once they were counted) 2,488 and 7,472 until the chain's index of the list by name
    // found the element's container.
    expect(large).toBeLessThan(2.2 * small);
    expect(large).toBeLessThan(3.5 * 800);
  });

  it('anchors read the list as the earlier elements left it', async () => {
    // Each element gives its container a workingDir; the second item then gives imagePullPolicy to every
    // container that has one by the time its anchors are read: all but the last (whose own workingDir
    // comes with the merge after them).
    const p = policy([
      {
        list: 'request.object.spec.containers',
        order: 'Ascending',
        patchStrategicMerge: {
          spec: {
            containers: [
              { '(name)': '{{ element.name }}', workingDir: '/w{{ elementIndex }}' },
              { '(workingDir)': '/w*', '+(imagePullPolicy)': 'IfNotPresent' },
            ],
          },
        },
      },
    ]);
    const { pod } = await run(p, { containers: containers(12) });
    const list = listOf(pod);
    expect(list).toHaveLength(12);
    expect(list.filter((c) => c.imagePullPolicy === 'IfNotPresent').map((c) => c.name).sort()).toEqual(
      containers(11).map((c) => c.name).sort(),
    );
    expect(list.every((c) => typeof c.workingDir === 'string')).toBe(true);
    // Each merge moves the containers it names to the front: the last element's come first.
    expect(list[0].name).toBe('c11');
  });

  it('delete items through the list kept aside', async () => {
    const p = policy([
      {
        list: 'request.object.spec.containers',
        preconditions: { all: [{ key: '{{ element.image }}', operator: 'Equals', value: 'img1*' }] },
        patchStrategicMerge: { spec: { containers: [{ '(name)': '{{ element.name }}', $patch: 'delete' }] } },
      },
    ]);
    const { pod } = await run(p, { containers: containers(30) });
    expect(listOf(pod).map((c) => c.name)).toEqual(containers(30).map((c) => c.name).filter((n) => !/^c1/.test(String(n))));
  });

  it('refresh request.object between nested entries even when an entry changed nothing', async () => {
    // The second c0 finds its label already set: the first inner entry changes nothing, and the second
    // must still read the resource as the loop left it (three labels by then), not the object from
    // before the loop. (A merge that changed nothing gave back the same resource for a while, and the
    // refresh was skipped.)
    const p = policy([
      {
        list: 'request.object.spec.containers',
        foreach: [
          { list: 'element.env', patchStrategicMerge: { metadata: { labels: { 'l-{{ element0.name }}': 'x' } } } },
          {
            list: 'element.env',
            patchStrategicMerge: { metadata: { annotations: { 'a-{{ elementIndex0 }}-{{ element1.name }}': '{{ length(keys(request.object.metadata.labels || `{}`)) }}' } } },
          },
        ],
      },
    ]);
    const spec = { containers: ['c0', 'c1', 'c2', 'c0'].map((name, i): JsonObject => ({ name, image: `img${i}`, env: [{ name: 'E', value: 'v' }] })) };
    const { pod } = await run(p, spec);
    expect((pod.metadata as { labels: unknown }).labels).toEqual({ 'l-c0': 'x', 'l-c1': 'x', 'l-c2': 'x' });
    // Ascending (the outer entry itself merges nothing): c0, c1, c2, then c0 again, its label already there.
    expect((pod.metadata as { annotations: unknown }).annotations).toEqual({ 'a-0-E': 1, 'a-1-E': 2, 'a-2-E': 3, 'a-3-E': 3 });
  });
});
