import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { applyConfiguration, SchemaRegistry, strategicMerge, strictDecode } from '../../src/schema/index.js';
import { validateTyped } from '../../src/schema/ssa/validate.js';
import { rng, type Rng } from '../json/helpers.js';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];

function container(r: Rng, name: string): JsonObject {
  const c: JsonObject = { name };
  if (r.int(2)) c.image = `${name}:${r.int(9)}`;
  if (r.int(2)) c.env = [...new Set(Array.from({ length: r.int(3) }, () => r.pick(NAMES)))].map((n) => ({ name: n, value: String(r.int(9)) }));
  if (r.int(3) === 0) c.ports = [{ containerPort: 80 + r.int(3), name: 'p' }];
  return c;
}

function distinctNames(r: Rng, max: number): string[] {
  return [...new Set(Array.from({ length: r.int(max) + 1 }, () => r.pick(NAMES)))];
}

function pod(r: Rng): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: Object.fromEntries(distinctNames(r, 3).map((n) => [n, String(r.int(9))])) },
    spec: { containers: distinctNames(r, 4).map((n) => container(r, n)) },
  };
}

const names = (o: any): string[] => o.spec.containers.map((c: any) => c.name);

/** Is `sub` a subsequence of `seq`? */
function inOrder(sub: string[], seq: string[]): boolean {
  let i = 0;
  for (const x of seq) if (x === sub[i]) i++;
  return i === sub.length;
}

describe('merge invariants on random pods and patches', () => {
  const registry = SchemaRegistry.builtin();
  const type = registry.lookup('v1', 'Pod')!;

  it('server-side apply: valid result, nothing lost, patch values win, live-only and patch orders kept', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      const live = pod(r);
      const patch = pod(r);
      delete patch.apiVersion;
      delete patch.kind;
      const res = applyConfiguration(type, live, patch);
      if (!res.ok) throw new Error(`seed ${seed}: ${res.error.message}`);
      const out: any = res.object;
      expect(validateTyped(out, type.root, false), `seed ${seed}`).toEqual([]);
      const liveNames = names(live);
      const patchNames = names(patch);
      const outNames = names(out);
      expect(new Set(outNames), `seed ${seed}`).toEqual(new Set([...liveNames, ...patchNames]));
      expect(inOrder(patchNames, outNames), `seed ${seed}: patch order`).toBe(true);
      expect(inOrder(liveNames.filter((n) => !patchNames.includes(n)), outNames), `seed ${seed}: live order`).toBe(true);
      for (const [k, v] of Object.entries((patch.metadata as any).labels)) expect(out.metadata.labels[k]).toBe(v);
      for (const c of (patch.spec as any).containers) {
        const merged = out.spec.containers.find((x: any) => x.name === c.name);
        if (c.image !== undefined) expect(merged.image).toBe(c.image);
      }
    }
  });

  it('strategic merge: overlay items first in overlay order, then untouched ones in resource order; an empty overlay changes nothing', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      const live = pod(r);
      const overlay = pod(r);
      delete overlay.apiVersion;
      delete overlay.kind;
      const res = strategicMerge(live, overlay);
      if (!res.ok) throw new Error(`seed ${seed}: ${res.error.message}`);
      const patchNames = names(overlay);
      const rest = names(live).filter((n) => !patchNames.includes(n));
      expect(names(res.value), `seed ${seed}`).toEqual([...patchNames, ...rest]);
      const same = strategicMerge(live, {});
      expect(same.ok && same.value, `seed ${seed}`).toEqual(live);
    }
  });
});

describe('random junk never escapes as an exception', () => {
  const registry = SchemaRegistry.builtin();
  const types = ['v1/Pod', 'apps/v1/Deployment', 'v1/Service', 'batch/v1/CronJob'].map((k) => {
    const i = k.lastIndexOf('/');
    return registry.lookup(k.slice(0, i), k.slice(i + 1))!;
  });

  function junk(r: Rng, depth: number): JsonValue {
    const k = depth > 3 ? r.int(4) : r.int(7);
    if (k === 0) return null;
    if (k === 1) return r.int(2) === 0;
    if (k === 2) return r.int(100) - 50;
    if (k === 3) return r.pick(['', 'x', 'spec', 'containers', 'name']);
    const keys = ['spec', 'metadata', 'containers', 'name', 'labels', 'template', 'ports', 'selector', 'x', '__proto__', '$patch'];
    if (k === 4 || k === 5) {
      const o: JsonObject = {};
      for (let i = r.int(4); i > 0; i--) Object.defineProperty(o, r.pick(keys), { value: junk(r, depth + 1), enumerable: true, writable: true, configurable: true });
      return o;
    }
    return Array.from({ length: r.int(3) }, () => junk(r, depth + 1));
  }

  it('applyConfiguration, strategicMerge and strictDecode answer every input with a result value', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const r = rng(seed);
      const t = r.pick(types);
      const a = junk(r, 0);
      const b = junk(r, 0);
      expect(() => applyConfiguration(t, a, b), `seed ${seed}`).not.toThrow();
      expect(() => strategicMerge(a, b), `seed ${seed}`).not.toThrow();
      expect(() => strictDecode(t, a), `seed ${seed}`).not.toThrow();
      expect(() => strategicMerge({ apiVersion: 'v1', kind: 'Pod', spec: a }, { spec: b }), `seed ${seed}`).not.toThrow();
    }
  });
});
