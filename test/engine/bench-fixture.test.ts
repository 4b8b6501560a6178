/** The benchmark's ten policies are a realistic set too: they load cleanly and do what they say. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pod4k } from '../../bench/fixtures.js';
import { evaluate } from '../../src/engine/index.js';
import { applyPatch } from '../../src/jsonpatch/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'fixtures', 'map-policies.yaml');

describe('bench/fixtures/map-policies.yaml on the 4 KB Pod', () => {
  it('loads without problems and mutates the Pod as the policies describe', async () => {
    const set = buildPolicySet([parseDocuments('map-policies.yaml', readFileSync(file, 'utf8'))]);
    expect(set.problems).toEqual([]);
    expect(set.counts).toMatchObject({ mutatingAdmissionPolicies: 10, mutatingAdmissionPolicyBindings: 10, params: 2, namespaces: 1 });
    const request = pod4k().request;
    const r = await evaluate(set, request);
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    const pod = r.object as any;
    expect(pod.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'web', 'example.com/owner': 'payments' });
    expect(pod.metadata.annotations).toMatchObject({
      'mesh.example.com/status': 'injected',
      'mesh.example.com/containers': 'web,sidecar',
      'cost-center': 'cc-4711',
      contact: 'payments@example.com',
    });
    expect(pod.spec.containers.map((c: any) => c.env.at(-1))).toEqual([
      { name: 'CLUSTER_REGION', value: 'eu-west-1' },
      { name: 'CLUSTER_REGION', value: 'eu-west-1' },
    ]);
    expect(pod.spec.tolerations.at(-1)).toEqual({ key: 'example.com/spot', operator: 'Exists', effect: 'NoSchedule' });
    expect(pod.spec.priorityClassName).toBe('standard');
    expect(pod.metadata.labels.system).toBeUndefined();
    expect(r.outcomes.map((o) => o.result)).toEqual(['mutated', 'unchanged', 'mutated', 'unchanged', 'mutated', 'mutated', 'mutated', 'mutated', 'unchanged', 'skipped']);
    expect(applyPatch(request.object, r.patch, 'rfc6902')).toEqual({ ok: true, doc: r.object });
  });
});
