import { formatNs, measure, table } from '../lib.js';
import { pod4k } from '../fixtures.js';
import { applyPatch, createPatch, decodePatch } from '../../src/jsonpatch/index.js';
import type { Flavour, Operation } from '../../src/jsonpatch/index.js';

/** A typical 5-op mutation of a Pod: labels, an annotation, an image, a sidecar env var, a toleration. */
const PATCH = [
  { op: 'add', path: '/metadata/labels/amender.io~1mutated', value: 'true' },
  { op: 'replace', path: '/metadata/annotations/prometheus.io~1port', value: '9091' },
  { op: 'replace', path: '/spec/containers/0/image', value: 'registry.example.com/shop/web:1.24.4' },
  { op: 'add', path: '/spec/containers/1/env/-', value: { name: 'MESH_MODE', value: 'strict' } },
  { op: 'add', path: '/spec/tolerations/0', value: { key: 'dedicated', operator: 'Equal', value: 'shop', effect: 'NoSchedule' } },
];

/** apply and diff of a 4 KB Pod, each as a ratio to JSON.parse + JSON.stringify of the same Pod. */
export async function run(): Promise<void> {
  const pod = pod4k().request.object;
  const text = JSON.stringify(pod);
  const baseline = measure(() => JSON.stringify(JSON.parse(text)));

  const rows: Record<string, string | number>[] = [];
  const row = (what: string, fn: () => unknown) => {
    const s = measure(fn);
    rows.push({ what, median: formatNs(s.median), p99: formatNs(s.p99), 'ratio to parse+stringify': (s.median / baseline.median).toFixed(3) });
  };

  rows.push({ what: `JSON.parse + JSON.stringify (${text.length} B Pod)`, median: formatNs(baseline.median), p99: formatNs(baseline.p99), 'ratio to parse+stringify': '1.000' });
  const decoded: Record<Flavour, Operation[]> = { kubernetes: [], kyverno: [], rfc6902: [] };
  for (const flavour of ['kubernetes', 'kyverno', 'rfc6902'] as Flavour[]) {
    const d = decodePatch(PATCH, flavour);
    if (!d.ok) throw new Error(d.message);
    decoded[flavour] = d.patch;
    const check = applyPatch(pod, d.patch, flavour);
    if (!check.ok) throw new Error(`${flavour}: ${check.message}`);
    row(`apply 5 ops (${flavour})`, () => applyPatch(pod, d.patch, flavour));
  }
  row('decode + apply 5 ops (kyverno)', () => {
    const d = decodePatch(PATCH, 'kyverno');
    return d.ok && applyPatch(pod, d.patch, 'kyverno');
  });

  const mutated = applyPatch(pod, decoded.kubernetes, 'kubernetes');
  if (!mutated.ok) throw new Error(mutated.message);
  const unshared = JSON.parse(JSON.stringify(mutated.doc));
  row(`diff mutated Pod, subtrees shared (${createPatch(pod, mutated.doc).length} ops)`, () => createPatch(pod, mutated.doc));
  row(`diff mutated Pod, fully re-parsed copy (${createPatch(pod, unshared).length} ops)`, () => createPatch(pod, unshared));
  const identical = JSON.parse(text);
  row('diff identical Pods, no sharing (0 ops)', () => createPatch(pod, identical));

  table('jsonpatch: apply and diff of a 4 KB Pod', rows);
}
