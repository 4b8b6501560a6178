/**
 * A Kyverno foreach whose patchesJson6902 adds one annotation per container: the elements' patches form a
 * chain (src/jsonpatch PatchChain), each editing in place the annotations map the previous ones copied,
 * instead of copying the whole map per element (4,000 containers took 2.1 s, 20,000 about a minute; here
 * 20,000 must end inside a 10 s review deadline). An element whose patch fails still fails the whole
 * rule and leaves nothing of its earlier elements behind.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { ReviewGuard } from '../../src/guard/index.js';
import type { JsonObject } from '../../src/json/index.js';
import { applyPatch } from '../../src/jsonpatch/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';

function policy(name: string, failurePolicy: 'Fail' | 'Ignore', patch: string): string {
  return `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  failurePolicy: ${failurePolicy}
  rules:
  - name: per-container
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        patchesJson6902: |-
${patch.replace(/^/gm, '          ')}
`;
}

const ANNOTATE = `- op: add
  path: /metadata/annotations/image.example.com~1{{ element.name }}
  value: "{{ element.image }}"`;

function pod(n: number): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', annotations: { existing: 'yes' } },
    spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `registry.example.com/c${i}:1` })) },
  };
}

async function review(docs: string, subject: JsonObject, deadlineMs = 10_000) {
  const set = buildPolicySet([parseDocuments('policies.yaml', docs)]);
  expect(set.problems).toEqual([]);
  const guard = new ReviewGuard({ deadlineMs, maxValueBytes: 1 << 30 });
  return evaluate(set, podRequest(subject), { guard });
}

describe('foreach patchesJson6902 over many containers', () => {
  it('20,000 annotations, one per container, within a review deadline', async () => {
    const subject = pod(20_000);
    const result = await review(policy('annotate', 'Fail', ANNOTATE), subject);
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    const patched = applyPatch(subject, result.patch);
    expect(patched.ok).toBe(true);
    if (!patched.ok) return;
    const annotations = (patched.doc as { metadata: { annotations: Record<string, string> } }).metadata.annotations;
    expect(Object.keys(annotations).length).toBe(20_001);
    expect(annotations['image.example.com/c19999']).toBe('registry.example.com/c19999:1');
    expect(annotations.existing).toBe('yes');
    // The received object is left as it was.
    expect(Object.keys((subject.metadata as JsonObject).annotations as JsonObject)).toEqual(['existing']);
  });

  it('an element whose patch fails fails the rule: nothing of the earlier elements is kept, later policies run', async () => {
    // The test op fails at container c7 (its image differs), after seven elements added annotations.
    const failing = `- op: add
  path: /metadata/annotations/seen-{{ element.name }}
  value: "yes"
- op: test
  path: /spec/containers/{{ elementIndex }}/image
  value: "registry.example.com/{{ element.name }}:1"`;
    const subject = pod(12);
    ((subject.spec as JsonObject).containers as JsonObject[])[7].image = 'other:2';
    const later = `
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: later
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
  - name: label
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      patchStrategicMerge:
        metadata:
          labels: {checked: "yes"}
`;
    const result = await review(policy('checks', 'Ignore', failing) + later, subject);
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    expect(result.outcomes.find((o) => o.policy === 'ClusterPolicy/checks')).toMatchObject({ result: 'error', ignored: true });
    expect(result.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { checked: 'yes' } }]);
  });
});
