/**
 * A merge into a map that an earlier merge of the same cache found normalized walks only the overlay's
 * fields. It used to copy the map whatever they gave: an overlay naming list items by their keys only
 * copied every item it named. Kyverno's `+()` anchors in a foreach's list item name every item of the
 * list, for every element, so a foreach over n containers made n² copies, each remembered in the
 * cache's normalized memo (8,000 containers: "Map maximum size exceeded", the rule failed). Now the
 * map is given back as it is when none of those fields changes, and copied as before otherwise.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { strategicMerge, StrategicMergeCache, StrategicMergeChain, type StrategicMergeOptions } from '../../src/schema/index.js';

function merge(resource: JsonValue, overlay: JsonValue, options?: StrategicMergeOptions): JsonObject {
  const r = strategicMerge(resource, overlay, options);
  if (!r.ok) throw r.error;
  return r.value;
}

const pod = (n: number): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `img${i}`, imagePullPolicy: 'Always', workingDir: null })) },
});
const containersOf = (pod: JsonObject) => (pod.spec as { containers: JsonObject[] }).containers;

describe('strategic merge into maps known normalized', () => {
  it('gives back the items an overlay names by key only, or sets to what they hold', () => {
    for (const chained of [false, true]) {
      const cache = new StrategicMergeCache();
      const chain = chained ? new StrategicMergeChain() : undefined;
      // The first merge walks (and remembers) every item.
      const first = merge(pod(20), { spec: { containers: [{ name: 'c0', workingDir: '/w' }] } }, { cache, chain });
      chain?.flush();
      const before = [...containersOf(first)];
      const overlay = { spec: { containers: before.map((c, i): JsonObject => (i % 2 ? { name: c.name } : { name: c.name, imagePullPolicy: 'Always', image: c.image })) } };
      const second = merge(first, overlay, { cache, chain });
      chain?.settle();
      const after = containersOf(second);
      expect(after).toHaveLength(20);
      for (let i = 0; i < 20; i++) expect(after[i], `item ${i}, chained: ${chained}`).toBe(before[i]);
    }
  });

  it('copies an item when a field changes, is deleted, or is added', () => {
    const cache = new StrategicMergeCache();
    const first = merge(pod(10), { spec: { containers: [{ name: 'c9', imagePullPolicy: 'Always' }] } }, { cache });
    const before = containersOf(first);
    const second = merge(
      first,
      { spec: { containers: [{ name: 'c1', image: 'other' }, { name: 'c2', workingDir: null }, { name: 'c3', imagePullPolicy: null }, { name: 'c4', tty: true }, { name: 'c5' }] } },
      { cache },
    );
    const byName = new Map(containersOf(second).map((c) => [c.name, c]));
    expect(byName.get('c1')).toEqual({ name: 'c1', image: 'other', imagePullPolicy: 'Always', workingDir: null });
    // A null the resource holds goes when the overlay names it with null; a null it keeps stays.
    expect(byName.get('c2')).toEqual({ name: 'c2', image: 'img2', imagePullPolicy: 'Always' });
    expect(byName.get('c3')).toEqual({ name: 'c3', image: 'img3', workingDir: null });
    expect(byName.get('c4')).toEqual({ name: 'c4', image: 'img4', imagePullPolicy: 'Always', workingDir: null, tty: true });
    for (const name of ['c1', 'c2', 'c3', 'c4']) expect(byName.get(name)).not.toBe(before.find((c) => c.name === name));
    expect(byName.get('c5')).toBe(before.find((c) => c.name === 'c5'));
    // The inputs are untouched.
    expect(before.find((c) => c.name === 'c1')).toEqual({ name: 'c1', image: 'img1', imagePullPolicy: 'Always', workingDir: null });
  });
});

describe('what a merge gives back', () => {
  it('is a new resource, even when nothing changed (Kyverno refreshes request.object between foreach entries on that)', () => {
    const cache = new StrategicMergeCache();
    const first = merge(pod(20), { spec: { containers: [{ name: 'c0', workingDir: '/w' }] } }, { cache });
    const again = merge(first, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c0' }] } }, { cache });
    expect(again.metadata).toBe(first.metadata);
    const same = merge(first, { metadata: { name: 'p' } }, { cache });
    expect(same).toEqual(first);
    expect(same).not.toBe(first);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });

  it('copies the parents of a list a chain edited in place', () => {
    const cache = new StrategicMergeCache();
    const chain = new StrategicMergeChain();
    const first = merge(pod(20), { spec: { containers: [{ name: 'c0', workingDir: '/w' }] } }, { cache, chain });
    const spec = first.spec;
    const second = merge(first, { spec: { containers: [{ name: 'c5', workingDir: '/x' }] } }, { cache, chain });
    chain.settle();
    // The list itself is the one kept under edit; the map holding it is a new one.
    expect((second.spec as JsonObject).containers).toBe((first.spec as JsonObject).containers);
    expect(second.spec).not.toBe(spec);
    expect(containersOf(second)[0]).toEqual({ name: 'c5', image: 'img5', imagePullPolicy: 'Always', workingDir: '/x' });
  });
});
