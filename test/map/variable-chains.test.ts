/**
 * Policy variables that read one another in long chains, through the app's /mutate: kube-apiserver
 * compiles each variable in an environment that grows by one field, and evaluates them lazily on Go's
 * growable stack, so a chain of thousands answers. Amender compiled each with a copy of every earlier
 * name spelled into its cache key (15,000 variables, a 1 MB policy: over a minute and 3.7 GB), and
 * evaluated a chain by recursion (about 900 deep overflowed the stack: the review was denied).
 */
import { describe, expect, it } from 'vitest';
import { decodeBase64Utf8 } from '../../src/admission/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet } from '../../src/server/index.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REVIEW = readFileSync(fileURLToPath(new URL('../fixtures/reviews/pod-create.json', import.meta.url)), 'utf8');

/** A MAP (and its binding) whose variable v(i) is `expression(i)`, writing the label `x` from `label`. */
function chainPolicy(count: number, expression: (i: number) => string, label: string): [string, string] {
  const variables = Array.from({ length: count }, (_, i) => ({ name: `v${i}`, expression: expression(i) }));
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: 'chain' },
    spec: {
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
      variables,
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: `[JSONPatch{op: "add", path: "/metadata/labels/x", value: ${label}}]` } }],
    },
  };
  const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'chain' }, spec: { policyName: 'chain' } };
  return [JSON.stringify(policy), JSON.stringify(binding)];
}

async function review([policy, binding]: [string, string]): Promise<{ allowed: boolean; patch?: string; message?: string }> {
  const set = buildPolicySet([parseDocuments('p.json', policy), parseDocuments('b.json', binding)]);
  expect(set.problems).toEqual([]);
  const { app } = createApp({ policies: fixedPolicySet(set, 'test') });
  const res = await app.fetch(new Request('http://amender/mutate', { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } }));
  const r = ((await res.json()) as { response: { allowed: boolean; patch?: string; status?: { message: string } } }).response;
  return { allowed: r.allowed, patch: r.patch === undefined ? undefined : decodeBase64Utf8(r.patch), message: r.status?.message };
}

const previousPlusOne = (i: number) => (i === 0 ? '1' : `variables.v${i - 1} + 1`);

describe('a chain of variables, each reading the one before', () => {
  it('of 2,000 answers with the last one’s value', async () => {
    const r = await review(chainPolicy(2000, previousPlusOne, 'string(variables.v1999)'));
    expect(r.message).toBeUndefined();
    expect(r.patch).toContain('"value":"2000"');
  });

  it('of 15,000 (a policy of about 1 MB) compiles and answers', async () => {
    const r = await review(chainPolicy(15_000, previousPlusOne, 'string(variables.v14999)'));
    expect(r.patch).toContain('"value":"15000"');
  });

  it('that fails at its far end fails with the variables named in order, as kube-apiserver nests the errors', async () => {
    const r = await review(chainPolicy(200, (i) => (i === 0 ? '1 / 0' : `variables.v${i - 1} + 1`), 'string(variables.v199)'));
    expect(r.allowed).toBe(false);
    const named = (from: number, count: number) => Array.from({ length: count }, (_, k) => `composited variable "v${from - k}" fails to evaluate: `).join('');
    // The reply's message keeps its start and end (the middle of a long one is cut).
    expect(r.message).toContain(`resulted in error: ${named(199, 10)}`);
    expect(r.message!.endsWith(`${named(9, 10)}division by zero`)).toBe(true);
  });

  it('evaluates a variable only when read: one behind a false condition never fails the chain', async () => {
    // v(i) reads v(i-1) only when i is not a multiple of 50; v(i) for those starts over, so the error of
    // v0 (never read by anyone past v49) stays unread along the 1,000.
    const expression = (i: number) => (i === 0 ? '1 / 0' : i % 50 === 0 ? '0' : `variables.v${i - 1} + 1`);
    const r = await review(chainPolicy(1000, expression, 'string(variables.v999)'));
    expect(r.message).toBeUndefined();
    expect(r.patch).toContain('"value":"49"');
  });

  it('that branches reads each variable once: a diamond of 1,000 levels', async () => {
    // v(i) reads v(i-1) twice; evaluated once each, the value doubles per level and the cost stays linear.
    const expression = (i: number) => (i === 0 ? '1' : `(variables.v${i - 1} + variables.v${i - 1}) % 1000003`);
    const r = await review(chainPolicy(1000, expression, 'string(variables.v999)'));
    let v = 1;
    for (let i = 1; i < 1000; i++) v = (v + v) % 1000003;
    expect(r.patch).toContain(`"value":"${v}"`);
  });
});
