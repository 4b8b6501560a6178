/**
 * `preconditions: {any: []}`: Kyverno's evaluateAnyAllConditionsWithContext (pkg/engine/variables/evaluate.go)
 * starts the `any` result at false as soon as the list is present (`anyConditions != nil`; Go decodes `[]` to a
 * non-nil empty slice, and TransformConditions' DeepCopy keeps it), so an empty `any` never holds and the rule
 * (or the foreach element) is skipped. An empty `all`, a null `any` and an empty old-style list hold.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { pod, podRequest } from './helpers/requests.js';

const PSM = { patchStrategicMerge: { metadata: { labels: { checked: 'yes' } } } };

async function statusWith(preconditions: JsonValue, inForeach: boolean) {
  const rule: JsonObject = { name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] } };
  if (inForeach) rule.mutate = { foreach: [{ list: 'request.object.spec.containers', preconditions, ...PSM }] };
  else Object.assign(rule, { preconditions, mutate: PSM });
  const compiled = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: { rules: [rule] },
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const object = pod('web', ['a']);
  const result = await runKyvernoPolicies([compiled.policy], { request: podRequest(object) });
  return result.policies.flatMap((p) => p.rules.map((r) => r.status));
}

const TRUE = { key: 'a', operator: 'Equals', value: 'a' };

describe('an empty any list in preconditions', () => {
  it.each([
    [{ any: [] }, 'skipped'],
    [{ any: [], all: [TRUE] }, 'skipped'],
    [{ any: [TRUE] }, 'applied'],
    [{ all: [] }, 'applied'],
    [{ any: null }, 'applied'],
    [{}, 'applied'],
    [[], 'applied'],
  ] as const)('%j: %s', async (preconditions, expected) => {
    expect(await statusWith(preconditions as unknown as JsonValue, false)).toEqual([expected]);
    // a foreach entry takes no old-style list (foreach-preconditions-shape.test.ts)
    if (!Array.isArray(preconditions)) expect(await statusWith(preconditions as unknown as JsonValue, true)).toEqual([expected]);
  });
});
