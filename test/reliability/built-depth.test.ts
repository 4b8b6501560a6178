/**
 * Received documents are bounded in depth by the parser (AMENDER_MAX_JSON_DEPTH, at most 1,000), but a
 * review can build deeper ones: a JSON patch whose moves nest the object once more per container. Every
 * step after the policies recurses over what they built (the reply patch's size walk, its JSON.stringify),
 * and past a few thousand levels the stack overflowed there: HTTP 500 for the whole review. A value
 * nested deeper than 1,000 levels is now a size error of the mutation that built it (since stop 39: before,
 * of every policy that mutated, found by the reply's diff), answered by its policy's failurePolicy like a
 * patch over the size bound. Through the HTTP app, for a custom resource (no schema
 * to refuse the nesting first).
 */
import { describe, expect, it } from 'vitest';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';

/** One more level of nesting under /spec/deep per item of spec.items. */
function nestingPolicy(failurePolicy: 'Fail' | 'Ignore'): string {
  return `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: nest}
spec:
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{operations: [CREATE], apiGroups: [example.com], apiVersions: [v1], resources: [widgets]}]
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/spec/deep", value: {"leaf": true}}] +
        object.spec.items.map(i, [JSONPatch{op: "add", path: "/spec/wrap", value: {}},
          JSONPatch{op: "move", from: "/spec/deep", path: "/spec/wrap/inner"},
          JSONPatch{op: "move", from: "/spec/wrap", path: "/spec/deep"}]).flatten()
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: nest}
spec: {policyName: nest}
`;
}

async function review(failurePolicy: 'Fail' | 'Ignore', items: number): Promise<any> {
  const set = buildPolicySet([parseDocuments('policies.yaml', nestingPolicy(failurePolicy))]);
  expect(set.problems).toEqual([]);
  const { app } = createApp({ policies: fixedPolicySet(set, 'test') });
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { items: Array.from({ length: items }, (_, i) => i) } };
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'deep-1',
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: widget,
    },
  });
  const res = await app.fetch(new Request('http://amender/mutate', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
  expect(res.status).toBe(200);
  return ((await res.json()) as { response: unknown }).response;
}

describe('a value built deeper than a review may be', () => {
  it('within the bound: patched', async () => {
    const response = await review('Fail', 900);
    expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
  });

  it('past it: failurePolicy Fail denies naming the policy and the depth; Ignore admits without the mutation', async () => {
    const denied = await review('Fail', 1500);
    expect(denied.allowed).toBe(false);
    // Failed as the mutation that built it, before anything after it walks the object.
    expect(denied.status.message).toMatch(/policy 'nest'.*the object a mutation produced nests deeper than 1000 levels/);
    const admitted = await review('Ignore', 1500);
    expect(admitted).toEqual({ uid: 'deep-1', allowed: true });
  });
});
