/**
 * StrategicMergeChain.flush(): the lists a chain keeps aside are written into their arrays, so the
 * latest result can be read, and stay under edit for the chain's next merge (Kyverno flushes before an
 * overlay's anchors read the resource's lists). settle() used to be the only way to write them, and it
 * forgot them: the next merge then indexed the whole list again. Results are checked against merges
 * without a chain, step by step; the work is counted as guard ticks (one per node walked).
 */
import { describe, expect, it } from 'vitest';
import type { ReviewGuard } from '../../src/guard/index.js';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { strategicMerge, StrategicMergeCache, StrategicMergeChain, type StrategicMergeOptions } from '../../src/schema/index.js';

function merge(resource: JsonValue, overlay: JsonValue, options?: StrategicMergeOptions): JsonObject {
  const r = strategicMerge(resource, overlay, options);
  if (!r.ok) throw r.error;
  return r.value;
}

/** A guard that counts the nodes a merge walks. */
function counter(): { guard: ReviewGuard; ticks: () => number } {
  let n = 0;
  const guard = { tick: () => void n++, check: () => undefined } as unknown as ReviewGuard;
  return { guard, ticks: () => n };
}

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pod = (n: number): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `img${i}`, env: [{ name: 'A', value: String(i) }], ports: [{ containerPort: 80 + i, protocol: 'TCP' }] })) },
});

describe('StrategicMergeChain.flush', () => {
  it('writes the results as merges without a chain give them, and the chain goes on', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rnd = prng(seed);
      const int = (n: number) => Math.floor(rnd() * n);
      const size = 8 + int(30);
      let expected: JsonObject = pod(size);
      let actual = expected;
      const chain = new StrategicMergeChain();
      const cache = new StrategicMergeCache();
      const steps = 1 + int(40);
      for (let step = 0; step < steps; step++) {
        const name = `c${int(size + 4)}`;
        const r = rnd();
        const item: JsonObject =
          r < 0.1
            ? { name, $patch: 'delete' }
            : r < 0.3
              ? { name, env: [{ name: `E${int(3)}`, value: String(step) }] }
              : r < 0.4
                ? { name, ports: [{ containerPort: 80 + int(size), protocol: 'UDP', name: 'p' }] }
                : { name, imagePullPolicy: step % 2 ? 'Always' : 'Never' };
        const overlay: JsonObject = rnd() < 0.1 ? { spec: { containers: [item, { name: `c${int(size)}`, workingDir: '/w' }] } } : { spec: { containers: [item] } };
        expected = merge(expected, overlay);
        actual = merge(actual, overlay, { chain, cache });
        if (rnd() < 0.8) {
          chain.flush();
          expect(actual, `seed ${seed} step ${step}`).toEqual(expected);
        }
      }
      chain.settle();
      expect(actual, `seed ${seed}`).toEqual(expected);
    }
  });

  it('keeps the lists under edit: a foreach that flushes before every element walks each element once', () => {
    const walked = (n: number) => {
      const { guard, ticks } = counter();
      const chain = new StrategicMergeChain();
      const cache = new StrategicMergeCache();
      let current = pod(n);
      for (let i = n - 1; i >= 0; i--) {
        current = merge(current, { spec: { containers: [{ name: `c${i}`, imagePullPolicy: 'Always' }] } }, { chain, cache, guard });
        chain.flush(); // what Kyverno does before the next element's anchors read the containers
      }
      chain.settle();
      const list = (current.spec as { containers: JsonObject[] }).containers;
      expect(list.map((c) => c.name)).toEqual(Array.from({ length: n }, (_, i) => `c${i}`));
      expect(list.every((c) => c.imagePullPolicy === 'Always')).toBe(true);
      return ticks();
    };
    const small = walked(500);
    const large = walked(1_000);
    // The first merge walks the Pod (about 13 nodes per container); each later one its own container.
    // Settling in place of flushing walked every container again per element: 500 × 1,000 more.
    expect(large).toBeLessThan(2.2 * small);
    expect(large).toBeLessThan(20 * 1_000);
  });

  it('never modifies the merges inputs, flushed or not', () => {
    const resource = pod(20);
    const copy = structuredClone(resource);
    const chain = new StrategicMergeChain();
    let current = resource;
    for (let i = 0; i < 20; i++) {
      current = merge(current, { spec: { containers: [{ name: `c${i}`, imagePullPolicy: 'Always' }] } }, { chain });
      if (i % 3 === 0) chain.flush();
    }
    chain.settle();
    expect(resource).toEqual(copy);
  });
});

/** A Pod of one container with `n` ports (keys containerPort + protocol). */
const portsPod = (n: number, protocol = (i: number) => (i % 3 === 0 ? 'UDP' : 'TCP')): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'a', image: 'i', ports: Array.from({ length: n }, (_, i) => ({ containerPort: 1000 + i, protocol: protocol(i) })) }] },
});
const portsOf = (pod: JsonObject) => ((pod.spec as { containers: JsonObject[] }).containers[0].ports ?? []) as JsonObject[];

describe('a chain over a list with several merge keys, named by some of them', () => {
  it('gives what merges without a chain give (seeded overlays: partial, full, duplicate, deleting, new)', () => {
    for (let seed = 1; seed <= 240; seed++) {
      const rnd = prng(5_000 + seed);
      const int = (n: number) => Math.floor(rnd() * n);
      const size = 8 + int(25);
      // Some ports share a number (TCP and UDP): a partial tuple then matches both.
      let expected: JsonObject = portsPod(size, (i) => (i % 3 === 0 ? 'UDP' : 'TCP'));
      // In some Pods some ports have no protocol (the API server defaults it; a manifest may not).
      const noProtocol = seed % 3 === 0 ? 0.3 : seed % 3 === 1 ? 0.05 : 0;
      (expected.spec as { containers: JsonObject[] }).containers[0].ports = portsOf(expected).map((p, i) => {
        const q = i % 5 === 4 ? { ...p, containerPort: 1000 + i - 1 } : p;
        return rnd() < noProtocol ? { containerPort: q.containerPort } : q;
      });
      let actual = expected;
      const chain = new StrategicMergeChain();
      const cache = new StrategicMergeCache();
      const steps = 1 + int(30);
      for (let step = 0; step < steps; step++) {
        const item = (): JsonObject => {
          const port = 1000 + int(size + 3);
          const r = rnd();
          if (r < 0.45) return { containerPort: port, name: `s${step}` };
          if (r < 0.6) return { containerPort: port, $patch: 'delete' };
          if (r < 0.85) return { containerPort: port, protocol: rnd() < 0.5 ? 'TCP' : 'UDP', hostPort: step };
          if (r < 0.95) return { protocol: 'SCTP', name: `x${step}` };
          return { containerPort: port, protocol: 'SCTP' };
        };
        const items = Array.from({ length: 1 + (rnd() < 0.3 ? 1 + int(2) : 0) }, item);
        const overlay = { spec: { containers: [{ name: 'a', ports: items }] } };
        const want = strategicMerge(expected, overlay);
        const got = strategicMerge(actual, overlay, { chain, cache });
        expect(got.ok, `seed ${seed} step ${step}`).toBe(want.ok);
        if (!want.ok || !got.ok) break;
        expected = want.value;
        actual = got.value;
        if (rnd() < 0.7) {
          chain.flush();
          expect(actual, `seed ${seed} step ${step}: ${JSON.stringify(items)}`).toEqual(expected);
        }
      }
      chain.settle();
      expect(actual, `seed ${seed}`).toEqual(expected);
    }
  });

  it('drops, in the list kept aside, overlays naming a port by its number only: the work grows with the list', () => {
    const walked = (n: number) => {
      const { guard, ticks } = counter();
      const chain = new StrategicMergeChain();
      const cache = new StrategicMergeCache();
      let current = portsPod(n, () => 'TCP');
      for (let i = n - 1; i >= 0; i--) {
        current = merge(current, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 1000 + i, name: `p${i}` }] }] } }, { chain, cache, guard });
      }
      chain.settle();
      const ports = portsOf(current);
      expect(ports.map((p) => p.containerPort)).toEqual(Array.from({ length: n }, (_, i) => 1000 + i));
      // kyaml's mergeValues completes {containerPort} to the port's {containerPort, TCP}, which the overlay
      // item does not hold: no item of the overlay is merged.
      expect(ports.every((p) => p.name === undefined && p.protocol === 'TCP')).toBe(true);
      return ticks();
    };
    const small = walked(500);
    const large = walked(1_000);
    // Each merge walks the Pod's path to the list (about 12 nodes). The general walk of every port per
    // element would add about n² ticks.
    expect(large).toBeLessThan(2.2 * small);
    expect(large).toBeLessThan(20 * 1_000);
  });

  it('edits the list kept aside when its ports have no protocol: the work grows with the list', () => {
    const walked = (n: number) => {
      const { guard, ticks } = counter();
      const chain = new StrategicMergeChain();
      const cache = new StrategicMergeCache();
      let current = portsPod(n);
      (current.spec as { containers: JsonObject[] }).containers[0].ports = portsOf(current).map((p) => ({ containerPort: p.containerPort }));
      for (let i = n - 1; i >= 0; i--) {
        current = merge(current, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 1000 + i, name: `p${i}` }] }] } }, { chain, cache, guard });
      }
      chain.settle();
      expect(portsOf(current)).toEqual(Array.from({ length: n }, (_, i) => ({ containerPort: 1000 + i, name: `p${i}` })));
      return ticks();
    };
    const small = walked(500);
    const large = walked(1_000);
    // A list with items that set only some keys was never kept under edit: every element's merge took
    // the general walk (about n² ticks).
    expect(large).toBeLessThan(2.2 * small);
    expect(large).toBeLessThan(20 * 1_000);
  });
});
