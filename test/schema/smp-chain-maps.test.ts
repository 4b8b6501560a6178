/**
 * A chain's merges edit in place the maps of plain types (labels, annotations, nodeSelector, resource
 * limits) that earlier merges of the chain built. Each merge used to copy such a map before setting
 * one key: a foreach adding a label or an annotation per container (AppArmor's per-container
 * annotation) copied every key so far, per element: n² (4,000 containers: 3.5 s, nearly all of it
 * Object.assign). Maps the chain did not build, or built before it settled, are still copied (so is a
 * map whose size a normalizing walk recorded for the review, which no test here reaches: the
 * chain's own maps are known normalized and not walked again).
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
  metadata: { name: 'p', labels: { app: 'a' } },
  spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `img${i}` })) },
});
const labelsOf = (pod: JsonObject) => (pod.metadata as { labels: JsonObject }).labels;

describe('a chain of merges into a plain map', () => {
  it('edits the map its first merge built, in place, with the results merges without a chain give', () => {
    const input = pod(3);
    const inputCopy = structuredClone(input);
    const chain = new StrategicMergeChain();
    const cache = new StrategicMergeCache();
    let expected = input;
    let actual = input;
    let built: JsonObject | undefined;
    for (let i = 0; i < 200; i++) {
      const overlay: JsonObject = {
        metadata: { labels: { [`l${i}`]: 'x', ...(i % 7 === 3 ? { [`l${i - 2}`]: null } : {}), ...(i % 11 === 5 ? { app: `v${i}` } : {}) } },
        ...(i % 13 === 0 ? { spec: { nodeSelector: { [`n${i}`]: 'y' } } } : {}),
      };
      expected = merge(expected, overlay);
      actual = merge(actual, overlay, { chain, cache });
      if (i % 5 === 0) chain.flush();
      expect(actual, `step ${i}`).toEqual(expected);
      // The first merge copied the input's labels; every later one edits that copy.
      built ??= labelsOf(actual);
      expect(labelsOf(actual), `step ${i}`).toBe(built);
    }
    chain.settle();
    expect(input).toEqual(inputCopy);
  });

  it('copies the map again once the chain settled (its results may then be kept)', () => {
    const chain = new StrategicMergeChain();
    const cache = new StrategicMergeCache();
    const first = merge(pod(1), { metadata: { labels: { a: '1' } } }, { chain, cache });
    const second = merge(first, { metadata: { labels: { b: '2' } } }, { chain, cache });
    expect(labelsOf(second)).toBe(labelsOf(first));
    chain.settle();
    const kept = structuredClone(second);
    const third = merge(second, { metadata: { labels: { c: '3' } } }, { chain, cache });
    expect(labelsOf(third)).not.toBe(labelsOf(second));
    expect(second).toEqual(kept);
    expect(labelsOf(third)).toEqual({ app: 'a', a: '1', b: '2', c: '3' });
  });
});
