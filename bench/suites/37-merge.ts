/**
 * Linear merging (issue 9): Kyverno `foreach` + `patchStrategicMerge` over a Pod's containers (for each
 * container, a merge that sets `imagePullPolicy` on the container named `{{element.name}}`), and one
 * plain strategic merge of a keyed list, at growing sizes. The growth factor of a step is
 * (time ratio) ÷ (size ratio): about 1 when the cost is linear in the document, the size ratio or more
 * when it is quadratic. `BENCH_MERGE_SIZES=100,1000,2000` measures other sizes.
 */
import { formatNs, measure, measureAsync, summarize, table, type Stats } from '../lib.js';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies, type CompiledKyvernoPolicy } from '../../src/kyverno/index.js';
import { strategicMerge } from '../../src/schema/index.js';

const SIZES = (process.env.BENCH_MERGE_SIZES ?? '100,1000,20000').split(',').map(Number);

function foreachPolicy(): CompiledKyvernoPolicy {
  const r = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'pull-always', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      rules: [
        {
          name: 'pull-always',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          mutate: {
            foreach: [
              {
                list: 'request.object.spec.containers',
                patchStrategicMerge: { spec: { containers: [{ name: '{{ element.name }}', imagePullPolicy: 'Always' }] } },
              },
            ],
          },
        },
      ],
    },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function pod(n: number): JsonObject {
  const containers: JsonValue[] = [];
  for (let i = 0; i < n; i++) {
    containers.push({ name: `c${i}`, image: `registry.example.com/app/c${i}:1.0`, ports: [{ containerPort: 8080 + (i % 100), protocol: 'TCP' }] });
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big', namespace: 'shop', labels: { app: 'big' } }, spec: { containers } };
}

function request(object: JsonObject): never {
  return {
    uid: '00000000-0000-0000-0000-000000000001',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    operation: 'CREATE',
    namespace: 'shop',
    name: 'big',
    object,
    userInfo: { username: 'bench' },
  } as never;
}

/**
 * A cold call, then a warm one whose time decides how many samples a size gets: fewer for slow ones,
 * so the suite ends even with a quadratic merge (a call over 2 s is its own only sample).
 */
async function sample(fn: () => Promise<unknown>): Promise<Stats> {
  let warm = 0;
  for (let i = 0; i < 2 && warm <= 2_000; i++) {
    const t0 = performance.now();
    await fn();
    warm = performance.now() - t0;
  }
  if (warm > 2_000) return summarize([warm * 1e6]);
  return measureAsync(fn, warm > 100 ? { minMillis: 0, warmup: 0, minSamples: 5 } : { minMillis: 500, warmup: 2, minSamples: 10 });
}

function sampleSync(fn: () => unknown): Stats {
  let warm = 0;
  for (let i = 0; i < 2 && warm <= 2_000; i++) {
    const t0 = performance.now();
    fn();
    warm = performance.now() - t0;
  }
  if (warm > 2_000) return summarize([warm * 1e6]);
  return warm > 50 ? measure(fn, { minMillis: 0, batch: 1 }) : measure(fn, { minMillis: 300 });
}

function growthRows(label: string, results: { n: number; stats: Stats }[]): Record<string, string | number>[] {
  return results.map(({ n, stats }, i) => {
    const prev = results[i - 1];
    const growth = prev ? stats.median / prev.stats.median / (n / prev.n) : undefined;
    return {
      case: label,
      items: n,
      'per review': formatNs(stats.median),
      'per item': formatNs(stats.median / n),
      growth: growth === undefined ? '' : `${growth.toFixed(2)} (×${(n / prev.n).toFixed(0)} items)`,
    };
  });
}

export async function run(): Promise<void> {
  const policy = foreachPolicy();
  // The engine is cold at first (the JIT needs about a second of small reviews): warm it before measuring.
  const small = pod(100);
  for (const end = performance.now() + 1_500; performance.now() < end; ) {
    await runKyvernoPolicies([policy], { request: request(small), namespaceLabels: {} });
    strategicMerge(small, { spec: { containers: [{ name: 'c1', imagePullPolicy: 'Always' }] } });
  }
  const foreach: { n: number; stats: Stats }[] = [];
  for (const n of SIZES) {
    const object = pod(n);
    const once = async () => {
      const result = await runKyvernoPolicies([policy], { request: request(object), namespaceLabels: {} });
      const containers = ((result.object as JsonObject).spec as JsonObject).containers as JsonObject[];
      if (containers.length !== n || containers[n - 1].imagePullPolicy !== 'Always') throw new Error('bench setup: not every container was patched');
    };
    foreach.push({ n, stats: await sample(once) });
  }
  table('merge: Kyverno foreach + patchStrategicMerge over a Pod\'s containers (one review)', growthRows('foreach', foreach));

  const plain: { n: number; stats: Stats }[] = [];
  const single: { n: number; stats: Stats }[] = [];
  for (const n of SIZES) {
    const object = pod(n);
    const containers = ((object.spec as JsonObject).containers as JsonObject[]).map((c) => ({ name: c.name, imagePullPolicy: 'Always' }));
    const every: JsonObject = { spec: { containers } };
    const one: JsonObject = { spec: { containers: [{ name: `c${n >> 1}`, imagePullPolicy: 'Always' }] } };
    plain.push({ n, stats: sampleSync(() => strategicMerge(object, every)) });
    single.push({ n, stats: sampleSync(() => strategicMerge(object, one)) });
  }
  table('merge: one strategic merge of a keyed list (containers by name)', [
    ...growthRows('every item patched', plain),
    ...growthRows('one item patched', single),
  ]);
}
