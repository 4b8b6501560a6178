/**
 * A foreach's strategic merges keep the lists they edit aside until their chain settles, so that each
 * element's merge costs O(1) in the list it edits. An overlay with anchors used to settle the chain before
 * every element, whatever its anchors read: the next merge then indexed the whole list again, and a
 * foreach over n containers whose overlay also held `<(dnsPolicy)` or `+(annotation)` cost n² (4,000
 * containers: 7.9 s, past the review's deadline). Now the chain settles only when the anchors read into a
 * list of the resource, or compare a map or list value; anchors that look at maps reached through maps
 * only read them as they are, up to date.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { podPolicy, polledPod } from './helpers/polled-review.js';

const policy = (foreach: JsonObject[]): string => podPolicy({ foreach });
const run = polledPod;

const containers = (n: number, extra: (i: number) => JsonObject = () => ({})) => Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `img${i}`, ...extra(i) }));

describe('foreach strategic merges with anchors that read maps only', () => {
  const mapAnchors = policy([
    {
      list: 'request.object.spec.containers',
      order: 'Ascending',
      patchStrategicMerge: {
        metadata: { annotations: { '+(first)': '{{ element.name }}' } },
        spec: { '<(dnsPolicy)': 'ClusterFirst', containers: [{ name: '{{ element.name }}', imagePullPolicy: 'Always' }] },
      },
    },
  ]);

  it('leave the chain as it is: the work grows with the list', async () => {
    const at = async (n: number) => {
      const { pod, polls } = await run(mapAnchors, { dnsPolicy: 'ClusterFirst', containers: containers(n) });
      expect((pod.spec as { containers: JsonObject[] }).containers).toHaveLength(n);
      expect((pod.spec as { containers: JsonObject[] }).containers.every((c) => c.imagePullPolicy === 'Always')).toBe(true);
      expect((pod.metadata as { annotations: unknown }).annotations).toEqual({ first: 'c0' });
      return polls;
    };
    const small = await at(400);
    const large = await at(800);
    // Linear: about 3 polls per element at both sizes. Re-indexing the list per element added n²/256
    // (1,854 and 4,954 polls before).
    expect(large).toBeLessThan(2.2 * small);
    expect(large).toBeLessThan(3.5 * 800);
  });

  it('read up-to-date maps: +() sees what earlier elements added, <() what they changed', async () => {
    const p = policy([
      {
        list: 'request.object.spec.containers',
      order: 'Ascending',
        patchStrategicMerge: {
          metadata: { annotations: { '+(first)': '{{ element.name }}' } },
          spec: { '<(hostname)': 'set-by-c0', containers: [{ name: '{{ element.name }}', imagePullPolicy: 'Always' }] },
        },
      },
      {
        list: 'request.object.spec.containers',
      order: 'Ascending',
        patchStrategicMerge: { spec: { hostname: 'set-by-c0', containers: [{ name: '{{ element.name }}', workingDir: '/w' }] } },
      },
    ]);
    const { pod } = await run(p, { hostname: 'h', containers: containers(10) });
    // The first entry's global condition never holds (hostname is h while it runs): none of its merges.
    expect((pod.metadata as { annotations?: unknown }).annotations).toBeUndefined();
    const list = (pod.spec as { containers: JsonObject[] }).containers;
    expect(list.some((c) => 'imagePullPolicy' in c)).toBe(false);
    expect(list.every((c) => c.workingDir === '/w')).toBe(true);
  });

  it('settle the chain before anchors read a list that earlier elements edited', async () => {
    // Each element sets its container's imagePullPolicy (kept aside in the chain); the anchored item
    // then gives securityContext to every container already Always: all but the last, whose own merge
    // comes after its anchors were resolved.
    const p = policy([
      {
        list: 'request.object.spec.containers',
      order: 'Ascending',
        patchStrategicMerge: {
          spec: {
            containers: [
              { name: '{{ element.name }}', imagePullPolicy: 'Always' },
              { '(imagePullPolicy)': 'Always', securityContext: { runAsNonRoot: true } },
            ],
          },
        },
      },
    ]);
    const { pod } = await run(p, { containers: containers(10) });
    const list = (pod.spec as { containers: JsonObject[] }).containers;
    const secured = list.filter((c) => c.securityContext !== undefined).map((c) => c.name).sort();
    expect(secured).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8']);
    expect(list.every((c) => c.imagePullPolicy === 'Always')).toBe(true);
  });

  it('settle the chain before a condition compares a map or list value', async () => {
    const p = policy([
      {
        list: 'request.object.spec.containers',
        order: 'Ascending',
        patchStrategicMerge: {
          metadata: { labels: { '+(seen)': '{{ element.name }}' } },
          spec: { '(containers)': [{ '(name)': 'c1', imagePullPolicy: 'Never' }], containers: [{ name: '{{ element.name }}', imagePullPolicy: 'Always' }] },
        },
      },
    ]);
    // c1 is Never until its own merge (the list's second edit, kept aside in the chain) makes it Always:
    // from c2 on the condition, which must read the list as the chain left it, no longer holds.
    const { pod } = await run(p, { containers: containers(10, (i): JsonObject => (i === 1 ? { imagePullPolicy: 'Never' } : {})) });
    const list = (pod.spec as { containers: JsonObject[] }).containers;
    expect(list.filter((c) => c.imagePullPolicy === 'Always').map((c) => c.name).sort()).toEqual(['c0', 'c1']);
    expect((pod.metadata as { labels: unknown }).labels).toEqual({ seen: 'c0' });
  });
});
