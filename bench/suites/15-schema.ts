import { formatNs, measure, table } from '../lib.js';
import { pod4k } from '../fixtures.js';
import { applyConfiguration, resolve, SchemaRegistry, strategicMerge, strictDecode, type TypeRef } from '../../src/schema/index.js';

/** Decodes every type reachable from `ref` (what the first merges of a kind end up doing). */
function touchAll(ref: TypeRef, seen = new Set<object>()): number {
  const atom = resolve(ref);
  if (seen.has(atom)) return seen.size;
  seen.add(atom);
  if (atom.list) touchAll(atom.list.elem, seen);
  if (atom.map?.elem) touchAll(atom.map.elem, seen);
  for (const f of atom.map?.fields?.values() ?? []) touchAll(f.type, seen);
  return seen.size;
}

/** Schemas and merges: SSA of a sidecar apply configuration, a Kyverno strategic merge, type lookups. */
export async function run(): Promise<void> {
  const pod = pod4k().request.object;
  const registry = SchemaRegistry.builtin();
  const podType = registry.lookup('v1', 'Pod')!;

  const sidecar = {
    metadata: { labels: { 'sidecar.example.com/injected': 'true' } },
    spec: {
      containers: [
        {
          name: 'proxy',
          image: 'registry.example.com/mesh/envoy:1.30',
          ports: [{ containerPort: 15001, name: 'envoy' }],
          env: [{ name: 'ENVOY_LOG_LEVEL', value: 'warn' }], // valueFrom.fieldRef is an atomic struct: refused
          resources: { limits: { cpu: '200m', memory: '128Mi' } },
        },
      ],
      volumes: [{ name: 'envoy-config', configMap: { name: 'envoy' } }],
    },
  };
  const overlay = {
    metadata: { annotations: { 'policy.example.com/mutated': 'true' } },
    spec: {
      containers: [{ name: 'web', imagePullPolicy: 'Always', env: [{ name: 'REGION', value: 'eu' }] }],
      initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'true'] }],
    },
  };
  if (!applyConfiguration(podType, pod, sidecar).ok || !strategicMerge(pod, overlay).ok) throw new Error('bench inputs do not merge');

  // Interleave with the yardstick so the ratios hold on a busy machine.
  const text = JSON.stringify(pod);
  const base = measure(() => JSON.stringify(JSON.parse(text)));
  const ssa = measure(() => applyConfiguration(podType, pod, sidecar));
  const smp = measure(() => strategicMerge(pod, overlay));
  const strict = measure(() => strictDecode(podType, pod));
  // What the MAP pipeline does after a JSON patch: judge only what the patch changed against the object
  // the API server sent (a one-field edit of spec, shared subtrees skipped), and an ApplyConfiguration on
  // such an edit of a checked object (the live check narrowed to the edit).
  const edited = { ...pod, spec: { ...pod.spec, priorityClassName: 'high' } };
  const strictEdit = measure(() => strictDecode(podType, edited, pod));
  const ssaChecked = measure(() => applyConfiguration(podType, edited, sidecar, { checked: pod }));
  const coldLookup = measure(() => resolve(SchemaRegistry.fresh().lookup('v1', 'Pod')!.root), { minMillis: 200 });
  const coldAll = measure(() => touchAll(SchemaRegistry.fresh().lookup('v1', 'Pod')!.root), { minMillis: 200 });
  const warm = measure(() => registry.lookup('v1', 'Pod'));
  const types = touchAll(podType.root);
  const base2 = measure(() => JSON.stringify(JSON.parse(text)));
  const yard = (base.median + base2.median) / 2;
  const ratio = (ns: number) => (ns / yard).toFixed(2);

  table('schema: merges on the 4 KB Pod, type lookups', [
    { case: 'JSON.parse + JSON.stringify of the Pod (yardstick)', median: formatNs(yard), p99: '', 'x yardstick': '1.00' },
    { case: 'SSA apply of a sidecar apply configuration', median: formatNs(ssa.median), p99: formatNs(ssa.p99), 'x yardstick': ratio(ssa.median) },
    { case: 'strategic merge of a typical overlay (prepend)', median: formatNs(smp.median), p99: formatNs(smp.p99), 'x yardstick': ratio(smp.median) },
    { case: 'strict decode of the Pod', median: formatNs(strict.median), p99: formatNs(strict.p99), 'x yardstick': ratio(strict.median) },
    { case: 'strict decode of a one-field edit (accepted: the Pod)', median: formatNs(strictEdit.median), p99: formatNs(strictEdit.p99), 'x yardstick': ratio(strictEdit.median) },
    { case: 'SSA apply of the sidecar to that edit (checked: the Pod)', median: formatNs(ssaChecked.median), p99: formatNs(ssaChecked.p99), 'x yardstick': ratio(ssaChecked.median) },
    { case: 'lookup v1/Pod, cold (fresh registry, root type)', median: formatNs(coldLookup.median), p99: formatNs(coldLookup.p99), 'x yardstick': ratio(coldLookup.median) },
    { case: `decode all ${types} types under v1/Pod, cold`, median: formatNs(coldAll.median), p99: formatNs(coldAll.p99), 'x yardstick': ratio(coldAll.median) },
    { case: 'lookup v1/Pod, warm', median: formatNs(warm.median), p99: formatNs(warm.p99), 'x yardstick': ratio(warm.median) },
  ]);
}
