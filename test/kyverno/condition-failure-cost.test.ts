/**
 * A `(key)` condition that fails is control flow, thrown once per resource item a list overlay item does
 * not match: a foreach over n containers whose patchStrategicMerge targets one of them by a `(name)`
 * anchor throws n² of them. They capture no stack trace (capturing one each time was two thirds of the
 * work: 700 containers took 3.7 s, 2,000 ran past the deadline). Checked on the failures themselves (the
 * time is bench material), then through the engine: the same rule still mutates only what it matches.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { ConditionFailure, GlobalConditionFailure, preprocessOverlay } from '../../src/kyverno/patchers/smp-preprocess.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { podRequest } from './helpers/requests.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('condition failures of strategic merge overlays', () => {
  it('carry their message and no stack frames', () => {
    const resource = { metadata: { name: 'p' } };
    const local = thrown(() => preprocessOverlay({ metadata: { '(name)': 'q', labels: { a: 'b' } } }, resource));
    const global = thrown(() => preprocessOverlay({ metadata: { '<(name)': 'q', labels: { a: 'b' } } }, resource));
    expect(local).toBeInstanceOf(ConditionFailure);
    expect(global).toBeInstanceOf(GlobalConditionFailure);
    for (const error of [local, global] as Error[]) {
      expect(error.message).toMatch(/condition failed: "name" does not match "q"/);
      expect(error.stack?.split('\n').filter((line) => line.trimStart().startsWith('at '))).toEqual([]);
    }
    // The limit is put back for every other error.
    expect(new Error('x').stack?.split('\n').length).toBeGreaterThan(1);
  });

  it('still pick the matching items in a foreach over many containers', async () => {
    const policy = {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'prefix-images' },
      spec: {
        rules: [
          {
            name: 'r',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            mutate: { foreach: [{ list: 'request.object.spec.containers', patchStrategicMerge: { spec: { containers: [{ '(name)': '{{ element.name }}', image: 'mirror/{{ element.image }}' }] } } }] },
          },
        ],
      },
    };
    const set = buildPolicySet(parseDocuments('p.json', JSON.stringify([policy])));
    expect(set.problems).toEqual([]);
    const containers = Array.from({ length: 200 }, (_, i) => ({ name: `c${i}`, image: `img${i}` }));
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers } };
    const result = await evaluate(set, podRequest(pod, { uid: 'u', name: 'p', namespace: 'default' }));
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    expect((result.object as { spec: { containers: { image: string }[] } }).spec.containers.map((c) => c.image)).toEqual(containers.map((c) => `mirror/${c.image}`));
  });
});
