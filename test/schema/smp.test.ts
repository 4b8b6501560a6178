import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { SchemaRegistry, strategicMerge, StrategicMergeCache, type StrategicMergeOptions } from '../../src/schema/index.js';

const VECTORS = join(import.meta.dirname, '..', 'vectors', 'kyverno');
const vector = (name: string) => parse(readFileSync(join(VECTORS, `${name}.yaml`), 'utf8'));

function merge(resource: JsonValue, overlay: JsonValue, options?: StrategicMergeOptions): JsonObject {
  const r = strategicMerge(resource, overlay, options);
  if (!r.ok) throw r.error;
  return r.value;
}

/** Kyverno CLI comparison: drop nulls, empty maps and empty lists (vectors/kyverno/README.md). */
function tidy(v: JsonValue): JsonValue | undefined {
  if (v === null) return undefined;
  if (Array.isArray(v)) {
    const out = v.map(tidy).filter((x) => x !== undefined) as JsonValue[];
    return out.length ? out : undefined;
  }
  if (typeof v === 'object') {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      const t = tidy(x);
      if (t !== undefined) out[k] = t;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v;
}

describe('strategic merge: Kyverno vectors (overlays without anchors)', () => {
  it('u-smp-add-container-and-initcontainer: new list items first, existing ones merged after them', () => {
    const v = vector('u-smp-add-container-and-initcontainer');
    expect(merge(v.resource, v.patchStrategicMerge)).toEqual(v.expect.patched);
  });

  // The anchor pre-processor (src/kyverno) turns these overlays into {spec: {imagePullSecrets: [...]}}: the
  // list entry that held only a condition anchor is dropped (see each vector's notes).
  for (const name of ['u-smp-condition-anchor-image-wildcard-1', 'u-smp-condition-anchor-image-wildcard-2']) {
    it(`${name}: the merge of the pre-processed overlay`, () => {
      const v = vector(name);
      const overlay = { spec: { imagePullSecrets: v.patchStrategicMerge.spec.imagePullSecrets } };
      expect(merge(v.resource, overlay)).toEqual(v.expect.patched);
    });
  }

  for (const name of ['cli-test-secret-example-r1', 'u-engine-precondition-quoted-key']) {
    it(`${name}: the rule's overlay merged into the resource`, () => {
      const v = vector(name);
      const rule = v.policies[0].spec.rules.find((r: any) => r.mutate);
      const out = merge(v.resource, rule.mutate.patchStrategicMerge);
      if (v.expect.compare === 'tidy-equal') expect(tidy(out)).toEqual(tidy(v.expect.patched));
      else expect(out).toEqual(v.expect.patched);
    });
  }
});

const pod = (spec: JsonObject, metadata: JsonObject = { name: 'p' }): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata, spec });
const names = (list: any[]) => list.map((x) => x.name);

describe('strategic merge: kyaml merge2 behaviour with list prepend', () => {
  const live = pod({
    containers: [
      { name: 'a', image: 'a:1', args: ['--x', '--y'], ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] },
      { name: 'b', image: 'b:1' },
      { name: 'c', image: 'c:1' },
    ],
    tolerations: [{ key: 'k', operator: 'Exists' }],
  }, { name: 'p', finalizers: ['f1', 'f2'], labels: { app: 'x', tier: 'web' } });

  it('puts the items the overlay names first (in overlay order), then the untouched ones in their order', () => {
    const out: any = merge(live, { spec: { containers: [{ name: 'c', image: 'c:2' }, { name: 'new', image: 'n:1' }] } });
    expect(names(out.spec.containers)).toEqual(['c', 'new', 'a', 'b']);
    expect(out.spec.containers[0]).toEqual({ name: 'c', image: 'c:2' });
  });

  it('replaces lists without a merge strategy and scalar lists; unions `merge` scalar lists overlay-first', () => {
    const out: any = merge(live, {
      metadata: { finalizers: ['f3', 'f1'] },
      spec: { tolerations: [{ key: 'new', operator: 'Equal', value: 'v' }], containers: [{ name: 'a', args: ['--z'] }] },
    });
    expect(out.spec.tolerations).toEqual([{ key: 'new', operator: 'Equal', value: 'v' }]);
    expect(out.spec.containers[0].args).toEqual(['--z']);
    expect(out.metadata.finalizers).toEqual(['f3', 'f1', 'f2']);
  });

  it('matches multi-key lists on the keys an overlay item sets', () => {
    // Several keys: kyaml's appendListNode deletes and re-appends each resource item, so the overlay's new
    // items come first and the resource's follow in their own order. Port 80 without protocol is completed
    // to 80/TCP by kyaml's mergeValues, which the overlay item does not hold: it is dropped.
    const out: any = merge(live, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 9090 }] }] } });
    expect(out.spec.containers[0].ports).toEqual([
      { containerPort: 9090 },
      { containerPort: 80, protocol: 'TCP', name: 'http' },
    ]);
  });

  it('deletes keys set to null, in maps and list items', () => {
    const out: any = merge(live, { metadata: { labels: { tier: null, gone: null } }, spec: { containers: [{ name: 'b', image: null }] } });
    expect(out.metadata.labels).toEqual({ app: 'x' });
    expect(out.spec.containers[0]).toEqual({ name: 'b' });
  });

  it('keeps the nulls of the resource the overlay does not name, as kyaml >= 0.17 does (persistent null)', () => {
    const out: any = merge({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', creationTimestamp: null }, status: {} }, { metadata: { labels: { a: 'b' } } });
    expect(out).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', creationTimestamp: null, labels: { a: 'b' } }, status: {} });
  });

  it('keeps nulls deep inside untouched subtrees, with or without keyed lists, and merges embedded kinds under unknown keys', () => {
    const pod: JsonObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', annotations: { a: 'b' } },
      spec: {
        containers: [
          {
            name: 'c',
            resources: { limits: { cpu: null, memory: '1Gi' } },
            livenessProbe: { exec: { command: ['sh', null] }, httpGet: null },
            securityContext: { capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault', localhostProfile: null } },
          },
        ],
        // Not in the schema: the walk looks for an embedded kind there (a Pod: its containers are keyed by
        // name, and kyaml keeps one item per key, the last one).
        extra: { nested: { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'x' }, { name: 'x', image: 'i' }] } } },
      },
    };
    for (const cache of [undefined, new StrategicMergeCache()]) {
      const out: any = merge(pod, { metadata: { labels: { a: 'b' } } }, { cache });
      expect(out.spec.containers[0]).toEqual({
        name: 'c',
        resources: { limits: { cpu: null, memory: '1Gi' } },
        livenessProbe: { exec: { command: ['sh', null] }, httpGet: null },
        securityContext: { capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault', localhostProfile: null } },
      });
      expect(out.spec.extra.nested.spec.containers).toEqual([{ name: 'x', image: 'i' }]);
      // Untouched subtrees without keyed lists come back as they are.
      expect(out.metadata.annotations).toBe((pod.metadata as JsonObject).annotations);
      expect(out.spec.containers[0]).toBe(((pod.spec as JsonObject).containers as JsonObject[])[0]);
      const again: any = merge(out, { metadata: { labels: { c: 'd' } } }, { cache });
      expect(again.spec.containers[0]).toEqual(out.spec.containers[0]);
    }
  });

  it('honours $patch: delete and replace on maps and list items, and {$patch: replace} in a list', () => {
    const del: any = merge(live, { spec: { containers: [{ name: 'b', $patch: 'delete' }] } });
    expect(names(del.spec.containers)).toEqual(['a', 'c']);
    const delMap: any = merge(live, { metadata: { labels: { $patch: 'delete' } } });
    expect(delMap.metadata).toEqual({ name: 'p', finalizers: ['f1', 'f2'] });
    const repl: any = merge(live, { metadata: { labels: { $patch: 'replace', only: 'this' } } });
    expect(repl.metadata.labels).toEqual({ only: 'this' });
    // An item's `$patch: replace` is undone: kyaml walks the overlay item instead of the resource's, then
    // sets the resource's (untouched) item back in its place (appendListNode).
    const replItem: any = merge(live, { spec: { containers: [{ name: 'a', $patch: 'replace', image: 'z:9' }] } });
    expect(replItem.spec.containers[0]).toEqual((live.spec as any).containers[0]);
    const replList: any = merge(live, { spec: { containers: [{ $patch: 'replace' }, { name: 'solo', image: 's' }] } });
    expect(replList.spec.containers).toEqual([{ name: 'solo', image: 's' }]);
    const merged: any = merge(live, { metadata: { labels: { $patch: 'merge', more: '1' } } });
    expect(merged.metadata.labels).toEqual({ app: 'x', tier: 'web', more: '1' });
  });

  it('applies a list directive item ({$patch: merge|replace|delete}) to the whole list (kyaml merge2 list tests)', () => {
    const dest = { apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'foo4' }, { name: 'foo5' }] } } } };
    const with$ = (directive: string): JsonValue => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { template: { spec: { containers: [{ name: 'foo1' }, { name: 'foo2' }, { name: 'foo3' }, { $patch: directive }] } } },
    });
    expect(names((merge(dest, with$('merge')) as any).spec.template.spec.containers)).toEqual(['foo1', 'foo2', 'foo3', 'foo4', 'foo5']);
    expect(names((merge(dest, with$('replace')) as any).spec.template.spec.containers)).toEqual(['foo1', 'foo2', 'foo3']);
    expect((merge(dest, with$('delete')) as any).spec.template.spec).toEqual({});
    const bad = strategicMerge(dest, with$('shuffle'));
    expect(!bad.ok && bad.error.message).toBe("strategic merge: .spec.template.spec.containers: unknown patch strategy 'shuffle'");
  });

  it('deletes list items with an item $patch: delete (kyaml merge2 list tests)', () => {
    const dest = { apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'foo1' }, { name: 'foo2' }, { name: 'foo3' }] } } } };
    const overlay: JsonValue = { spec: { template: { spec: { containers: [{ name: 'foo1', $patch: 'delete' }, { name: 'foo2' }, { name: 'foo3' }] } } } };
    expect(names((merge(dest, overlay) as any).spec.template.spec.containers)).toEqual(['foo2', 'foo3']);
  });

  it('strips directives and nulls from what it adds', () => {
    const out: any = merge(pod({ containers: [{ name: 'a' }] }), {
      spec: { volumes: [{ name: 'v', emptyDir: {} }, { name: 'gone', $patch: 'delete' }], securityContext: { $patch: 'replace', runAsUser: 1, fsGroup: null } },
    });
    expect(out.spec.volumes).toEqual([{ name: 'v', emptyDir: {} }]);
    expect(out.spec.securityContext).toEqual({ runAsUser: 1 });
  });

  it('replaces every list of a kind it has no schema for, unless asked to infer the `name` key', () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', spec: { items: [{ name: 'a', v: 1 }, { name: 'b', v: 2 }], tags: ['x'] } };
    const overlay = { spec: { items: [{ name: 'b', v: 3 }], tags: ['y'] } };
    expect((merge(widget, overlay) as any).spec.items).toEqual([{ name: 'b', v: 3 }]);
    const inferred: any = merge(widget, overlay, { inferListMergeKey: true });
    expect(inferred.spec.items).toEqual([{ name: 'b', v: 3 }, { name: 'a', v: 1 }]);
    expect(inferred.spec.tags).toEqual(['y']);
    // A CRD schema does not change this: kyaml knows nothing of CRDs.
    const registry = SchemaRegistry.builtin().withCrd({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    expect((merge(widget, overlay, { registry }) as any).spec.items).toEqual([{ name: 'b', v: 3 }]);
  });

  it('uses the schema of an embedded object of a known kind where the outer schema ends', () => {
    const wrapper = { apiVersion: 'example.com/v1', kind: 'Wrapper', spec: { template: pod({ containers: [{ name: 'a', image: 'a:1' }] }) } };
    const out: any = merge(wrapper, { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:1' }] } } } });
    expect(names(out.spec.template.spec.containers)).toEqual(['b', 'a']);
  });

  it('reports what it cannot merge', () => {
    const kind = strategicMerge(live, { spec: { containers: { name: 'a' } } });
    expect(!kind.ok && kind.error.message).toBe('strategic merge: wrong node kind at .spec.containers: expected SequenceNode but got MappingNode');
    const keyless = strategicMerge(live, { spec: { containers: [{ image: 'x' }] } });
    expect(!keyless.ok && keyless.error.message).toBe('strategic merge: .spec.containers[0]: list item has no merge key (name)');
    const directive = strategicMerge(live, { metadata: { $patch: 'explode' } });
    expect(!directive.ok && directive.error.message).toBe("strategic merge: .metadata: unknown patch strategy 'explode'");
    const root = strategicMerge(live, { $patch: 'delete' });
    expect(!root.ok && root.error.message).toBe('strategic merge: the patch deletes the whole resource');
    expect(strategicMerge('x', {}).ok).toBe(false);
    const conflicting = strategicMerge({ kind: 'W', apiVersion: 'x/v1', l: [{ name: 'a' }] }, { l: [{ id: 1 }] }, { inferListMergeKey: true });
    expect(!conflicting.ok && conflicting.error.message).toBe('strategic merge: conflicting merge keys [name,] for field l');
  });

  it('with a cache shared by merges that feed each other, gives what merging into fresh copies gives', () => {
    const clone = (v: JsonValue): JsonValue => JSON.parse(JSON.stringify(v));
    const start = pod(
      { containers: [{ name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }, { name: 'X', value: null }] }, { name: 'b', image: 'b:1' }], dnsPolicy: null },
      { name: 'p', creationTimestamp: null, labels: { app: 'x' } },
    );
    const overlays: JsonValue[] = [
      { metadata: { labels: { team: 't' } } },
      { spec: { containers: [{ name: 'b', imagePullPolicy: 'Always' }] } },
      { metadata: { annotations: { a: '1' } }, spec: { containers: [{ name: 'c', image: 'c:1' }] } },
    ];
    const cache = new StrategicMergeCache();
    let current: JsonValue = start;
    for (const overlay of overlays) {
      const fresh = merge(clone(current), overlay);
      current = merge(current, overlay, { cache });
      expect(current).toEqual(fresh);
    }
    // The same subtree under another type, or with other options, is walked again for that one.
    const spec = { containers: [{ name: 'a', image: 'a:1' }, { name: 'a', args: ['x'] }] } as JsonObject;
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', spec };
    const overlay = { metadata: { labels: { a: 'b' } } };
    const shared = new StrategicMergeCache();
    expect((merge(widget, overlay, { cache: shared }) as any).spec).toBe(spec);
    expect((merge(widget, overlay, { cache: shared, inferListMergeKey: true }) as any).spec.containers).toEqual([{ name: 'a', args: ['x'] }]);
    expect((merge(pod(spec), overlay, { cache: shared }) as any).spec.containers).toEqual([{ name: 'a', args: ['x'] }]);
    expect((merge(widget, overlay, { cache: shared }) as any).spec).toBe(spec);
  });

  it('with a cache, gives what fresh copies give over seeded random merge chains (keyless items, duplicates, nulls, directives, earlier documents)', () => {
    const clone = (v: JsonValue): JsonValue => JSON.parse(JSON.stringify(v));
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (seed >>> 16) % n; // the low bits of this generator repeat with a short period
    };
    const pick = <T>(xs: T[]): T => xs[rand(xs.length)];
    const scalar = (): JsonValue => pick<JsonValue>(['a', 'b', 1, true, null]);
    const env = (): JsonValue => {
      const item: JsonObject = rand(5) === 0 ? { value: scalar() } : { name: pick(['X', 'Y', 'Z']), value: scalar() };
      return item;
    };
    const container = (): JsonValue => {
      const c: JsonObject = rand(6) === 0 ? { image: 'nameless' } : { name: pick(['a', 'b', 'c']) };
      if (rand(2)) c.image = pick(['i:1', 'i:2', null]);
      if (rand(2)) c.env = Array.from({ length: rand(4) }, env);
      if (rand(4) === 0) c.$patch = pick(['replace', 'delete']);
      if (rand(3) === 0) c.ports = Array.from({ length: rand(3) }, () => ({ containerPort: pick([80, 443]), protocol: pick(['TCP', 'UDP']) }));
      return c;
    };
    const spec = (): JsonObject => {
      const s: JsonObject = {};
      if (rand(3)) s.containers = Array.from({ length: rand(4) }, container);
      if (rand(3) === 0) s.initContainers = Array.from({ length: rand(3) }, container);
      if (rand(4) === 0) s.dnsPolicy = scalar();
      if (rand(5) === 0) s.containers = null;
      return s;
    };
    const meta = (): JsonObject => ({ labels: rand(2) ? { app: scalar() } : { team: 'x', app: null }, ...(rand(3) === 0 ? { finalizers: ['f', pick(['g', 'f'])] } : {}) });
    for (let chain = 0; chain < 300; chain++) {
      const cache = new StrategicMergeCache();
      // Each step merges into the latest document or an earlier one: the cache must hold for all.
      const documents: JsonValue[] = [pod(spec(), { name: 'p', ...meta() })];
      for (let step = 0; step < 6; step++) {
        const current = rand(3) ? documents[documents.length - 1] : pick(documents);
        const overlay: JsonObject = rand(2) ? { spec: spec() } : { metadata: meta() };
        const fresh = strategicMerge(clone(current), overlay);
        const cached = strategicMerge(current, overlay, { cache });
        expect(cached.ok).toBe(fresh.ok);
        if (fresh.ok && cached.ok) {
          expect(cached.value).toEqual(fresh.value);
          documents.push(cached.value);
        }
      }
    }
  });

  it('with a cache, merges a document the cache knows normalized into itself as into a fresh copy', () => {
    const clone = (v: JsonValue): JsonValue => JSON.parse(JSON.stringify(v));
    const start = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'a' } }, spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } };
    const cache = new StrategicMergeCache();
    // The first merge leaves its result known normalized to the cache; the overlay is then that result itself.
    const merged = merge(start, { metadata: { labels: { team: 't' } } }, { cache });
    expect(merge(merged, merged, { cache })).toEqual(merge(clone(merged), clone(merged)));
    const metadataOnly = { metadata: merged.metadata } as JsonObject;
    expect(merge(merged, metadataOnly, { cache })).toEqual(merge(clone(merged), clone(metadataOnly)));
  });

  it('never modifies its inputs; __proto__ keys are data', () => {
    const frozen = JSON.parse(JSON.stringify(live));
    const overlay = JSON.parse('{"metadata":{"labels":{"__proto__":"x"}},"spec":{"containers":[{"name":"a","image":"q"}]}}');
    const before = JSON.stringify([frozen, overlay]);
    const out: any = merge(frozen, overlay);
    expect(JSON.stringify([frozen, overlay])).toBe(before);
    expect(Object.keys(out.metadata.labels)).toContain('__proto__');
    expect(({} as any).x).toBeUndefined();
  });
});
