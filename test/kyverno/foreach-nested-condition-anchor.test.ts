/**
 * A nested foreach over a container's env whose overlay names both its container and its env item with
 * condition anchors: `containers: [{(name): "{{ element0.name }}", env: [{(name): "{{ element.name }}", …}]}]`.
 * Kyverno checks the env item's condition against every env item of the container, for every element
 * (strategicPreprocessing.go processListOfMaps): m² checks over m env items. A literal name is met by
 * the env item of that name only, which the foreach chain's index of the list by its merge key finds:
 * the work, counted through the guard's polls, grows with m.
 *
 * A name that reads as a quantity is no literal: Kyverno compares `E4` and `E0` as quantities, both 0,
 * so the overlay names every such env item, for every element (m² by Kyverno's own result).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { podPolicy, polledPod } from './helpers/polled-review.js';

const policy = (envName: string) =>
  podPolicy({
    foreach: [
      {
        list: 'request.object.spec.containers',
        foreach: [
          {
            list: 'element.env',
            patchStrategicMerge: {
              spec: { containers: [{ '(name)': '{{ element0.name }}', env: [{ '(name)': envName, value: 'new-{{ elementIndex1 }}' }] }] },
            },
          },
        ],
      },
    ],
  });

const env = (m: number, prefix = 'var') => Array.from({ length: m }, (_, i): JsonObject => ({ name: `${prefix}${i}`, value: 'old' }));
const envOf = (pod: JsonObject) => ((pod.spec as { containers: JsonObject[] }).containers[0].env as JsonObject[]);

describe('a nested foreach whose overlay names its env item with a condition anchor', () => {
  it('finds the env item by name: the work grows with the list', async () => {
    const p = policy('{{ element.name }}');
    const at = async (m: number) => {
      const { pod, polls } = await polledPod(p, { containers: [{ name: 'c0', image: 'i', env: env(m) }] });
      // Each element sets its own item; the merges (descending) keep the order.
      expect(envOf(pod)).toEqual(env(m).map((e, i) => ({ name: e.name, value: `new-${i}` })));
      return polls;
    };
    const small = await at(400);
    const large = await at(800);
    // About 3 polls per element at both sizes (1,258 and 2,511). Checking every env item per element
    // (2m² ticks) made it 2,501 and 7,498.
    expect(large).toBeLessThan(2.2 * small);
    expect(large).toBeLessThan(3.5 * 800);
  });

  it('names every env item whose name equals the condition as a quantity, as Kyverno does', async () => {
    // `E0` … `E4` all read as the quantity 0: each element's overlay names all of them, and the last
    // element to run (index 0, descending) writes every value.
    const { pod } = await polledPod(policy('{{ element.name }}'), { containers: [{ name: 'c0', image: 'i', env: [...env(5, 'E'), { name: 'x', value: 'old' }] }] });
    expect(envOf(pod)).toEqual([...env(5, 'E').map((e) => ({ name: e.name, value: 'new-0' })), { name: 'x', value: 'new-5' }]);
  });
});
