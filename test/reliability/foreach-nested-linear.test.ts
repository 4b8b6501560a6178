/**
 * A nested Kyverno foreach (containers, then each container's env) whose inner patchStrategicMerge merges
 * into the Pod: its merges share one StrategicMergeChain with the outer loop, so the work grows linearly
 * with the number of containers. With a chain per inner loop every outer element indexed the whole merged
 * list again (1,000 containers × 4 env: 0.46 s, 4× per doubling). Work is counted, not timed: the received
 * containers count the reads of their `name` (every walk or index of the list reads it).
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import type { JsonObject } from '../../src/json/index.js';
import { applyPatch } from '../../src/jsonpatch/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';

const NESTED = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: env-values
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
  - name: every-env
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        foreach:
        - list: element.env
          patchStrategicMerge:
            spec:
              containers:
              - name: "{{ element0.name }}"
                env:
                - name: "{{ element.name }}"
                  value: "{{ element0.name }}-{{ elementIndex1 }}"
`;

/** The same loops with a JSON patch as the second inner entry: the chain must be written before it reads. */
const NESTED_THEN_JSON = `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: env-values-then-json
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
  - name: every-env
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      foreach:
      - list: request.object.spec.containers
        foreach:
        - list: element.env
          patchStrategicMerge:
            spec:
              containers:
              - name: "{{ element0.name }}"
                env:
                - name: "{{ element.name }}"
                  value: "merged"
        - list: "[element0.name]"
          patchesJson6902: |-
            - op: add
              path: /metadata/annotations/{{ element0.name }}
              value: "{{ length(request.object.spec.containers) }}"
`;

/** A Pod whose containers count the reads of their names in `reads.count`. */
function podWith(containers: number, env: number, reads = { count: 0 }): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', annotations: {} },
    spec: {
      containers: Array.from({ length: containers }, (_, i) => ({
        get name() {
          reads.count++;
          return `c${i}`;
        },
        image: 'nginx',
        env: Array.from({ length: env }, (_, j) => ({ name: `E${j}`, value: 'v' })),
      })),
    },
  };
}

async function run(policy: string, pod: JsonObject): Promise<JsonObject> {
  const set = buildPolicySet([parseDocuments('policy.yaml', policy)]);
  expect(set.problems).toEqual([]);
  const outcome = await evaluate(set, podRequest(pod));
  if (!outcome.allowed) throw new Error(JSON.stringify(outcome.status));
  const patched = applyPatch(pod, outcome.patch);
  if (!patched.ok) throw new Error(patched.message);
  return patched.doc as JsonObject;
}

describe('a nested foreach whose inner entry merges into the Pod', () => {
  it('costs work in proportion to the containers, and sets every env value', async () => {
    const small = { count: 0 };
    await run(NESTED, podWith(400, 4, small));
    const large = { count: 0 };
    const result = await run(NESTED, podWith(1600, 4, large));
    // Four times the containers: about four times the reads (a chain per inner loop: about 16 times).
    expect(large.count / small.count).toBeLessThan(6);
    // The outer entry does not merge itself, so it runs in ascending order and each merge puts its
    // container first: the list ends reversed, as in Kyverno.
    const containers = (result.spec as JsonObject).containers as JsonObject[];
    expect(containers.map((c) => c.name)).toEqual(Array.from({ length: 1600 }, (_, i) => `c${1599 - i}`));
    for (const c of containers) expect(c.env).toEqual([0, 1, 2, 3].map((j) => ({ name: `E${j}`, value: `${c.name}-${j}` })));
  });

  it('a JSON patch after the merges, in the same loop, sees them applied', async () => {
    const result = await run(NESTED_THEN_JSON, podWith(12, 3));
    const containers = (result.spec as JsonObject).containers as JsonObject[];
    expect(containers.map((c) => c.name)).toEqual(Array.from({ length: 12 }, (_, i) => `c${11 - i}`));
    for (const c of containers) expect(c.env).toEqual([0, 1, 2].map((j) => ({ name: `E${j}`, value: 'merged' })));
    expect(result.metadata).toEqual({ name: 'p', namespace: 'default', annotations: Object.fromEntries(containers.map((c) => [c.name, '12'])) });
  });
});
