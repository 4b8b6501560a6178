/**
 * Issue 9, "Linear merging": Kyverno foreach + patchStrategicMerge over a Pod's containers took 4.7 s for
 * 1,000 containers and minutes for 20,000 (quadratic per merge, cubic per foreach). Here 20,000 go
 * through the HTTP app within the default test timeout, and seeded random merges are compared with the
 * former implementation (helpers/merge-reference.ts) to show the new one gives the same results.
 */
import { describe, expect, it } from 'vitest';
import { ReviewAborted, ReviewGuard } from '../../src/guard/index.js';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { applyPatch, type Operation } from '../../src/jsonpatch/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies, type CompiledKyvernoPolicy } from '../../src/kyverno/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { strategicMerge, StrategicMergeCache, StrategicMergeChain } from '../../src/schema/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';
import { referenceStrategicMerge } from './helpers/merge-reference.js';

const FOREACH_POLICY = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: container-defaults
  annotations:
    pod-policies.kyverno.io/autogen-controllers: none
spec:
  rules:
    - name: pull-always
      match:
        any:
          - resources: {kinds: [Pod]}
      mutate:
        foreach:
          - list: request.object.spec.containers
            patchStrategicMerge:
              spec:
                containers:
                  - name: "{{ element.name }}"
                    imagePullPolicy: Always
`;

function bigPod(n: number): JsonObject {
  const containers: JsonValue[] = [];
  for (let i = 0; i < n; i++) containers.push({ name: `c${i}`, image: `registry.example.com/c${i}:1`, env: [{ name: 'A', value: String(i) }] });
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big', namespace: 'shop' }, spec: { containers } };
}

describe('foreach + patchStrategicMerge over 20,000 containers', () => {
  it('patches every container, in order, through the HTTP app', async () => {
    const n = 20_000;
    const set = buildPolicySet(parseDocuments('container-defaults.yaml', FOREACH_POLICY));
    const { app } = createApp({ policies: fixedPolicySet(set, 'test') });
    const object = bigPod(n);
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'c0ffee00-0000-4000-8000-000000000020',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: 'shop',
        operation: 'CREATE',
        userInfo: { username: 'admin' },
        object,
        oldObject: null,
      },
    };
    const res = await app.request('/mutate', { method: 'POST', body: JSON.stringify(review), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { response: { allowed: boolean; patch?: string; patchType?: string } };
    expect(reply.response.allowed).toBe(true);
    expect(reply.response.patchType).toBe('JSONPatch');
    const patch = JSON.parse(Buffer.from(reply.response.patch!, 'base64').toString('utf8')) as Operation[];
    const applied = applyPatch(object, patch);
    expect(applied.ok).toBe(true);
    const containers = ((applied as { doc: JsonObject }).doc.spec as JsonObject).containers as JsonObject[];
    expect(containers).toHaveLength(n);
    for (let i = 0; i < n; i++) {
      const c = containers[i];
      // Descending iteration (the default with strategic merge) keeps the original order.
      if (c.name !== `c${i}` || c.imagePullPolicy !== 'Always' || c.image !== `registry.example.com/c${i}:1`) {
        expect.fail(`container ${i}: ${JSON.stringify(c)}`);
      }
      if ((c.env as JsonObject[])[0].value !== String(i)) expect.fail(`container ${i} env: ${JSON.stringify(c.env)}`);
    }
  });
});

/** mulberry32: a small seeded generator, so every case can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(readonly random: () => number) {}
  int(n: number): number {
    return Math.floor(this.random() * n);
  }
  chance(p: number): boolean {
    return this.random() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Ports keyed by containerPort + protocol; protocol often left out (partial key tuples). */
  ports(): JsonValue[] {
    const out: JsonValue[] = [];
    for (let i = this.int(4); i > 0; i--) {
      const p: JsonObject = { containerPort: this.pick([80, 443, 8080, '80']) };
      if (this.chance(0.5)) p.protocol = this.pick(['TCP', 'UDP']);
      if (this.chance(0.3)) p.name = this.pick(['http', 'https', 'dns']);
      out.push(p);
    }
    return out;
  }

  env(): JsonValue[] {
    const out: JsonValue[] = [];
    for (let i = this.int(4); i > 0; i--) {
      if (this.chance(0.08)) out.push({ value: 'no name' });
      else out.push({ name: this.pick(['A', 'B', 'C', 'D']), value: this.chance(0.1) ? null : String(this.int(9)) });
    }
    return out;
  }

  container(names: readonly string[]): JsonValue {
    if (this.chance(0.03)) return { image: 'keyless' };
    const c: JsonObject = { name: this.pick(names), image: `img${this.int(5)}` };
    if (this.chance(0.3)) c.imagePullPolicy = this.chance(0.2) ? null : 'IfNotPresent';
    if (this.chance(0.4)) c.ports = this.ports();
    if (this.chance(0.4)) c.env = this.env();
    if (this.chance(0.2)) c.args = ['a', String(this.int(3))];
    return c;
  }

  pod(count: number, names: readonly string[]): JsonObject {
    const containers: JsonValue[] = [];
    for (let i = 0; i < count; i++) containers.push(this.container(names));
    const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: '1', b: null } }, spec: { containers } };
    if (this.chance(0.3)) (pod.metadata as JsonObject).finalizers = ['x', 'y'];
    if (this.chance(0.3)) (pod.spec as JsonObject).initContainers = [this.container(names)];
    return pod;
  }

  /** One overlay item on the containers: merge, delete, replace, nulls, nested keyed lists. */
  overlayItem(names: readonly string[]): JsonValue {
    const item: JsonObject = { name: this.pick(names) };
    const r = this.random();
    if (r < 0.08) item.$patch = 'delete';
    else if (r < 0.12) item.$patch = 'replace';
    if (this.chance(0.6)) item.imagePullPolicy = this.chance(0.15) ? null : 'Always';
    if (this.chance(0.3)) item.ports = this.ports();
    if (this.chance(0.3)) item.env = this.env();
    if (this.chance(0.05)) item.ports = [{ $patch: 'replace' }, ...this.ports()];
    return item;
  }

  overlay(names: readonly string[], maxItems: number): JsonObject {
    const containers: JsonValue[] = [];
    for (let i = 1 + this.int(maxItems); i > 0; i--) containers.push(this.overlayItem(names));
    if (this.chance(0.03)) containers.unshift({ $patch: 'replace' });
    const overlay: JsonObject = { spec: { containers } };
    if (this.chance(0.1)) overlay.metadata = { labels: { a: null, c: '3' }, finalizers: ['z', 'x'] };
    if (this.chance(0.03)) overlay.spec = { containers: 'not a list' };
    return overlay;
  }
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);

/** ok + value, or the error message: what both implementations must agree on. */
function outcome(r: { ok: true; value: JsonObject } | { ok: false; error: Error }): unknown {
  return r.ok ? { value: r.value } : { error: r.error.message };
}

describe('strategic merge: same results as the former implementation', () => {
  it('agrees on 400 seeded random merges (duplicates, keyless items, partial keys, directives, nulls)', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const g = new Gen(prng(seed));
      const pool = names(2 + g.int(12));
      const resource = g.pod(g.int(25), pool);
      const overlay = g.overlay(pool, 6);
      const expected = outcome(referenceStrategicMerge(resource, overlay));
      expect(outcome(strategicMerge(resource, overlay)), `seed ${seed}`).toEqual(expected);
    }
  });

  it('agrees on 150 seeded chains of merges, each into the previous result (what foreach does)', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const g = new Gen(prng(10_000 + seed));
      const pool = names(10 + g.int(40));
      let expected: JsonObject = g.pod(8 + g.int(40), pool);
      let actual = expected;
      const cache = new StrategicMergeCache();
      const chain = new StrategicMergeChain();
      const steps = 1 + g.int(40);
      for (let step = 0; step < steps; step++) {
        // Mostly the foreach shape (one container named), sometimes several, sometimes other fields.
        const overlay = g.chance(0.8) ? { spec: { containers: [g.overlayItem(pool)] } } : g.overlay(pool, 4);
        const want = referenceStrategicMerge(expected, overlay);
        const got = strategicMerge(actual, overlay, { cache, chain });
        expect(got.ok, `seed ${seed} step ${step}`).toBe(want.ok);
        if (!want.ok || !got.ok) break;
        expected = want.value;
        actual = got.value;
        // The chain's results are written at settle(): now and then mid-way, always at the end.
        if (g.chance(0.1) || step === steps - 1) {
          chain.settle();
          expect(actual, `seed ${seed} step ${step}`).toEqual(expected);
        }
      }
    }
  });

  it('never modifies its inputs, chained or not', () => {
    const g = new Gen(prng(7));
    const pool = names(30);
    const resource = g.pod(30, pool);
    const copy = structuredClone(resource);
    const chain = new StrategicMergeChain();
    let current = resource;
    for (let i = 0; i < 20; i++) {
      const r = strategicMerge(current, { spec: { containers: [{ name: pool[i], imagePullPolicy: 'Always' }] } }, { chain });
      if (r.ok) current = r.value;
    }
    chain.settle();
    expect(resource).toEqual(copy);
  });
});

describe('strategic merge: the review guard', () => {
  const resource = bigPod(2_000);
  const overlay = { spec: { containers: [{ name: 'c7', imagePullPolicy: 'Always' }] } };

  it('stops a merge past the deadline with ReviewAborted', () => {
    let now = 0;
    // The clock jumps past the deadline once the merge has started walking.
    const guard = new ReviewGuard({ deadlineMs: 1_000, maxValueBytes: 1 << 20, now: () => (now += 100) });
    expect(() => strategicMerge(resource, overlay, { guard })).toThrow(ReviewAborted);
    expect(guard.aborted?.reason).toBe('deadline');
  });

  it('stops a cancelled merge, and runs to the end under a guard that holds', () => {
    const controller = new AbortController();
    controller.abort();
    const cancelled = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 1 << 20, signal: controller.signal });
    expect(() => strategicMerge(resource, overlay, { guard: cancelled })).toThrow(/cancelled/);
    const holds = new ReviewGuard({ deadlineMs: 60_000, maxValueBytes: 1 << 20 });
    const r = strategicMerge(resource, overlay, { guard: holds });
    expect(r.ok && ((r.value.spec as JsonObject).containers as JsonObject[])[0]).toMatchObject({ name: 'c7', imagePullPolicy: 'Always' });
  });
});

describe('Kyverno foreach: same results as element-by-element merges with the former implementation', () => {
  const policy = (yamlOverlay: JsonObject): CompiledKyvernoPolicy => {
    const r = compileKyvernoPolicy({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'p', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
      spec: {
        rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { foreach: [{ list: 'request.object.spec.containers', patchStrategicMerge: yamlOverlay }] } }],
      },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    return r.policy;
  };
  // Containers whose image is "drop" are deleted, others get a pull policy and an env variable.
  const compiled = policy({
    spec: {
      containers: [
        {
          name: '{{ element.name }}',
          $patch: "{{ element.image == 'drop' && 'delete' || 'merge' }}",
          imagePullPolicy: 'Always',
          env: [{ name: 'FROM', value: '{{ element.image }}' }],
        },
      ],
    },
  });

  it('agrees on 60 seeded Pods (duplicate names, deletions)', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const g = new Gen(prng(20_000 + seed));
      const pool = names(10 + g.int(30));
      const containers: JsonObject[] = [];
      for (let i = 8 + g.int(30); i > 0; i--) {
        containers.push({ name: g.pick(pool), image: g.chance(0.15) ? 'drop' : `img${g.int(4)}`, ...(g.chance(0.3) ? { env: [{ name: 'FROM', value: 'x' }, { name: 'K', value: '1' }] } : {}) });
      }
      const object: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers } };
      // Kyverno: elements in descending order, each merged into the previous result.
      let expected: JsonObject = object;
      for (let i = containers.length - 1; i >= 0; i--) {
        const c = containers[i];
        const item = { name: c.name, $patch: c.image === 'drop' ? 'delete' : 'merge', imagePullPolicy: 'Always', env: [{ name: 'FROM', value: c.image }] };
        const r = referenceStrategicMerge(expected, { spec: { containers: [item] } });
        if (!r.ok) throw r.error;
        expected = r.value;
      }
      const request = {
        uid: 'u',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        operation: 'CREATE',
        namespace: 'ns',
        name: 'p',
        object,
        userInfo: { username: 'u' },
      };
      const result = await runKyvernoPolicies([compiled], { request: request as never, namespaceLabels: {} });
      expect(result.policies[0].rules[0].status, `seed ${seed}`).toBe('applied');
      expect(result.object, `seed ${seed}`).toEqual(expected);
    }
  });
});
