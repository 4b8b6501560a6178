/**
 * How the anchor pre-processing walks an overlay against the resource (strategicPreprocessing.go), where a
 * list item's failure decides between skipping the item and skipping the rule.
 *
 * The order in which the anchor pre-processing walks a map's members decides which failure a list item
 * reports when two of them fail: a `()` condition skips the item, a `<()` global condition may skip the
 * rule. Kyverno walks the keys as json.Marshal sorted them, and kyaml renames a `+(key)` where it
 * stands (strategicPreprocessing.go walkMap: handleAddIfNotPresentAnchor, then nonAnchorKeys), so a
 * renamed `+(securityContext)` is walked before `resources` ('+' sorts before letters), not after it.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, compiled, pod, podRequest } from './helpers/requests.js';

describe('anchor walk order', () => {
  it('walks a renamed +() member at the place of its anchored key', async () => {
    const policy = compiled(
      clusterPolicy('walk-order', [
        {
          name: 'r',
          mutate: {
            patchStrategicMerge: {
              spec: {
                priorityClassName: 'high',
                containers: [
                  {
                    '(name)': '*',
                    // The container has no securityContext: renamed, then walked first, where its
                    // condition fails and only this container is skipped.
                    '+(securityContext)': { '(privileged)': true },
                    // Nor resources: walked second in Kyverno, its global condition never decides.
                    resources: { '<(limits)': { cpu: '?*' } },
                  },
                ],
              },
            },
          },
        },
      ]),
    );
    const object = pod('web', ['a']);
    const result = await runKyvernoPolicies([policy], { request: podRequest(object) });
    expect(result.policies[0].rules.map((r) => r.status)).toEqual(['applied']);
    expect(result.object).toMatchObject({ spec: { priorityClassName: 'high', containers: [{ name: 'a' }] } });
    expect((result.object as { spec: { containers: object[] } }).spec.containers[0]).not.toHaveProperty('securityContext');
  });

  it('a list field holding null is a list without items, not a missing field', async () => {
    // processListOfMaps runs an item against a missing list (`resource == nil`), where a global condition
    // fails the rule; a field holding null is a node for kyaml, with no elements: nothing is checked.
    const policy = compiled(
      clusterPolicy('null-list', [
        {
          name: 'r',
          mutate: { patchStrategicMerge: { spec: { priorityClassName: 'high', tolerations: [{ '<(key)': 'special' }] } } },
        },
      ]),
    );
    const status = async (tolerations: JsonObject) => {
      const object = pod('web', ['a'], tolerations);
      const result = await runKyvernoPolicies([policy], { request: podRequest(object) });
      return result.policies[0].rules.map((r) => r.status);
    };
    expect(await status({})).toEqual(['skipped']);
    expect(await status({ tolerations: null })).toEqual(['applied']);
    expect(await status({ tolerations: [{ key: 'other' }] })).toEqual(['skipped']);
    expect(await status({ tolerations: [{ key: 'special' }] })).toEqual(['applied']);
  });

  it('an overlay whose condition fails is still merged, emptied: kyaml normalizes the resource', async () => {
    // strategicMergePatch turns the patch into `{}` on a condition error and applies it: the walk of the
    // resource merges list items with the same merge key, and a resource that changes so is patched.
    const policy = compiled(
      clusterPolicy('empty-merge', [{ name: 'r', mutate: { patchStrategicMerge: { spec: { '(hostNetwork)': true, priorityClassName: 'high' } } } }]),
    );
    const run = async (env: JsonObject[]) => {
      const object = pod('web', ['a']);
      ((object.spec as JsonObject).containers as JsonObject[])[0].env = env;
      const result = await runKyvernoPolicies([policy], { request: podRequest(object) });
      const rule = result.policies[0].rules[0];
      return { status: rule.status, message: rule.message, env: (((result.object as JsonObject).spec as JsonObject).containers as JsonObject[])[0].env };
    };
    // The API server admits duplicate env names (with a warning); kyaml keeps one item per name.
    expect(await run([{ name: 'E', value: '1' }, { name: 'E', value: '2' }])).toMatchObject({ status: 'applied', env: [{ name: 'E' }] });
    expect(await run([{ name: 'E', value: '1' }])).toEqual({ status: 'skipped', message: expect.stringMatching(/condition failed/), env: [{ name: 'E', value: '1' }] });
  });
});
