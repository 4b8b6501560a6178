/**
 * Issue 9, items 1–2 (engine side): every review runs under a deadline and a value-size bound. A value
 * over the bound fails only the policy that built it; a deadline fails the policy in progress and answers
 * the policies not yet run by their failurePolicy without running them. Through the app's `fetch`
 * (createApp) and the engine's package exports. No timed assertion: the deadline cases use a tiny
 * deadline on work that would take seconds, the size cases a bound the work would pass a hundredfold.
 */
import { describe, expect, it } from 'vitest';
import { answerStoppedReview, evaluate, pipelinePolicies, type EngineResult } from '../../src/engine/index.js';
import { ReviewGuard } from '../../src/guard/index.js';
import { applyPatch } from '../../src/jsonpatch/index.js';
import { buildPolicySet, parseDocuments, type PolicySet } from '../../src/policyset/index.js';
import { createApp, fixedPolicySet, type Limits } from '../../src/server/index.js';
import { kyvernoLabelling } from './helpers/label-policy.js';

const MAP_API = 'admissionregistration.k8s.io/v1beta1';

interface PolicySpec {
  name: string;
  failurePolicy?: 'Fail' | 'Ignore';
  /** An ApplyConfiguration expression (default: a label named after the policy). */
  apply?: string;
  /** JSONPatch expression instead of `apply`. */
  jsonPatch?: string;
  variables?: { name: string; expression: string }[];
  resources?: string;
  bindings?: number;
}

function mapPolicy(p: PolicySpec): string {
  const mutation = p.jsonPatch
    ? `  - patchType: JSONPatch\n    jsonPatch:\n      expression: ${JSON.stringify(p.jsonPatch)}\n`
    : `  - patchType: ApplyConfiguration\n    applyConfiguration:\n      expression: ${JSON.stringify(p.apply ?? `Object{metadata: Object.metadata{labels: {"${p.name}": "done"}}}`)}\n`;
  const variables = p.variables ? `  variables:\n${p.variables.map((v) => `  - name: ${v.name}\n    expression: ${JSON.stringify(v.expression)}\n`).join('')}` : '';
  const bindings = Array.from({ length: p.bindings ?? 1 }, (_, i) => {
    const name = p.bindings ? `${p.name}-${String(i).padStart(3, '0')}` : p.name;
    return `---\napiVersion: ${MAP_API}\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: ${name}}\nspec: {policyName: ${p.name}}\n`;
  }).join('');
  return `apiVersion: ${MAP_API}
kind: MutatingAdmissionPolicy
metadata: {name: ${p.name}}
spec:
  failurePolicy: ${p.failurePolicy ?? 'Fail'}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [${p.resources ?? 'pods'}]}]
${variables}  mutations:
${mutation}${bindings}`;
}

function kyvernoPolicy(name: string, failurePolicy: 'Fail' | 'Ignore'): string {
  return kyvernoLabelling(name, failurePolicy, 'done');
}

function setOf(...docs: string[]): PolicySet {
  const set = buildPolicySet([parseDocuments('reliability.yaml', docs.join('---\n'))]);
  expect(set.problems).toEqual([]);
  return set;
}

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

function reviewOf(object: Record<string, unknown> = pod): Record<string, any> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      name: 'web',
      operation: 'CREATE',
      userInfo: { username: 'alice', groups: ['system:authenticated'] },
      object,
      oldObject: null,
    },
  };
}

const request = () => reviewOf().request;

async function post(set: PolicySet, limits: Partial<Limits> = {}, path = '/mutate'): Promise<any> {
  const { app } = createApp({ policies: fixedPolicySet(set, 'test'), limits, logger: () => {} });
  const res = await app.fetch(new Request(`http://x${path}`, { method: 'POST', body: JSON.stringify(reviewOf()), headers: { 'content-type': 'application/json' } }));
  expect(res.status).toBe(200);
  return ((await res.json()) as any).response;
}

function patchedObject(response: any): any {
  const patch = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
  const applied = applyPatch(pod, patch, 'rfc6902');
  expect(applied.ok).toBe(true);
  return (applied as { doc: any }).doc;
}

const guard = (deadlineMs: number, maxValueBytes = 6 << 20) => new ReviewGuard({ deadlineMs, maxValueBytes });

/**
 * A guard whose clock advances 1 ms per reading: the deadline passes after `deadlineMs` clock reads,
 * whatever the machine's speed (a real 50 ms deadline raced the CEL cost budget on a fast machine).
 */
function steppingGuard(deadlineMs: number): ReviewGuard {
  let now = 0;
  return new ReviewGuard({ deadlineMs, maxValueBytes: 6 << 20, now: () => now++ });
}

/** 'a' grown tenfold nine times: 10^9 characters, well inside the Kubernetes cost budget. */
const CHAINED_REPLACE = `'a'${".replace('a', 'aaaaaaaaaa')".repeat(9)}`;

/**
 * Milliseconds of CEL per evaluation, inside the per-call cost limit: 90,000 filter steps. (Three times
 * as many passed the limit, so a fast machine reached it before the deadline.) Sixty such variables make
 * one mutation of about half a second even on a fast machine: ten times the deadlines used here.
 */
const HEAVY = 'lists.range(300).map(x, lists.range(300).filter(y, y % 7 == x % 7).size()).size()';
const heavyVariables = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `v${i}`, expression: `${HEAVY} + ${i}` }));
const sumOf = (n: number) => Array.from({ length: n }, (_, i) => `variables.v${i}`).join(' + ');
const slowPolicy = (name: string, failurePolicy: 'Fail' | 'Ignore', variables = 60): PolicySpec => ({
  name,
  failurePolicy,
  variables: heavyVariables(variables),
  apply: `Object{metadata: Object.metadata{labels: {"${name}": string(${sumOf(variables)})}}}`,
});

describe('a value over the size bound fails only the policy that builds it', () => {
  it("CEL 'a'.replace('a', 'aaaaaaaaaa') chained 9× is a size error of its policy (Fail: 403 naming it)", async () => {
    const set = setOf(mapPolicy({ name: 'grow', apply: `Object{metadata: Object.metadata{annotations: {"x": ${CHAINED_REPLACE}}}}` }), mapPolicy({ name: 'later' }));
    const response = await post(set);
    expect(response.allowed).toBe(false);
    expect(response.status.code).toBe(403);
    expect(response.status.message).toContain("policy 'grow'");
    expect(response.status.message).toMatch(/the result of replace would be \d+ bytes, over the limit of 6291456/);
  });

  it('under failurePolicy Ignore the review goes on: later policies run and mutate', async () => {
    const set = setOf(mapPolicy({ name: 'grow', failurePolicy: 'Ignore', apply: `Object{metadata: Object.metadata{annotations: {"x": ${CHAINED_REPLACE}}}}` }), mapPolicy({ name: 'later' }));
    const response = await post(set);
    expect(response.allowed).toBe(true);
    expect(patchedObject(response).metadata.labels).toEqual({ app: 'web', later: 'done' });
    const result = await evaluate(set, request());
    expect(result.outcomes.map((o) => [o.policy, o.result, o.aborted, o.failurePolicy])).toEqual([
      ['grow', 'error', 'size', 'Ignore'],
      ['later', 'mutated', undefined, 'Fail'],
    ]);
  });

  it('string, list and join growth inside a comprehension stops at the bound', async () => {
    const set = setOf(
      mapPolicy({ name: 'concat', failurePolicy: 'Ignore', variables: [{ name: 's', expression: "lists.range(24).map(i, 'x').join('')" }], apply: `Object{metadata: Object.metadata{annotations: {"x": lists.range(20).map(i, variables.s).join(variables.s + variables.s + variables.s + variables.s + variables.s)}}}` }),
      mapPolicy({ name: 'lists', failurePolicy: 'Ignore', apply: `Object{metadata: Object.metadata{annotations: {"x": string([lists.range(1000)].map(l, l + l + l + l + l + l + l + l).size())}}}` }),
    );
    // A bound of 64 KiB: the first policy joins 20 pieces with 120 characters, the second builds 8,000 elements.
    const result = await evaluate(set, request(), { guard: guard(60_000, 64 << 10) });
    expect(result.allowed).toBe(true);
    expect(result.outcomes.map((o) => [o.policy, o.result])).toEqual([['concat', 'mutated'], ['lists', 'mutated']]);
    const tight = await evaluate(set, request(), { guard: guard(60_000, 2000) });
    expect(tight.outcomes.map((o) => [o.policy, o.result, o.aborted])).toEqual([['concat', 'error', 'size'], ['lists', 'error', 'size']]);
    expect(tight.outcomes[0].detail).toContain('the result of join');
    expect(tight.outcomes[1].detail).toContain('a concatenation of lists');
  });

  it('a JSON patch whose copies double the object is a size error, not a document of gigabytes', async () => {
    const copies = Array.from({ length: 30 }, (_, i) => `JSONPatch{op: "copy", from: "/metadata/labels", path: "/metadata/labels/c${i}"}`).join(', ');
    const big = { ...pod, metadata: { ...pod.metadata, labels: { app: 'x'.repeat(1000) } } };
    const set = setOf(mapPolicy({ name: 'double', jsonPatch: `[${copies}]` }));
    const result = await evaluate(set, { ...request(), object: big });
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.status.message).toContain("policy 'double'");
    expect(result.status.message).toContain('the values copied by a JSON patch would be');
    expect(result.outcomes[0].aborted).toBe('size');
  });

  it('CEL values that share one string many times are bounded as they would be written out', async () => {
    const set = setOf(
      mapPolicy({
        name: 'shared',
        variables: [{ name: 's', expression: "'y'.replace('y', 'yyyyyyyyyy').replace('y', 'yyyyyyyyyy').replace('y', 'yyyyyyyyyy').replace('y', 'yyyyyyyyyy')" }],
        jsonPatch: '[JSONPatch{op: "add", path: "/metadata/annotations", value: lists.range(2000).map(i, {"k": variables.s})}]',
      }),
    );
    // 2,000 references to one 10,000-character string: 20 MB once written out, a few KB in memory.
    const result = await evaluate(set, request());
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.status.message).toContain('the result of a mutation expression would be over the limit of 6291456 bytes');
  });

  it('a mutation value that embeds the object many times is measured as written out (JSONPatch and ApplyConfiguration)', async () => {
    // The conversion does not count a document's subtree it embeds as it is: such a value is measured.
    const patch = setOf(mapPolicy({ name: 'copies', jsonPatch: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"x": lists.range(40).map(i, object)}}]' }));
    const apply = setOf(mapPolicy({ name: 'copies', apply: 'Object{metadata: Object.metadata{annotations: {"x": string(lists.range(40).map(i, object).size())}}, spec: Object.spec{volumes: lists.range(40).map(i, object)}}' }));
    const small = { guard: guard(60_000, 2000) };
    const patched = await evaluate(patch, request(), small);
    expect(patched.allowed).toBe(false);
    if (!patched.allowed) expect(patched.status.message).toMatch(/policy 'copies'.*the JSON patch of a mutation would be \d+ bytes, over the limit of 2000 per value/);
    const applied = await evaluate(apply, request(), small);
    expect(applied.allowed).toBe(false);
    if (!applied.allowed) expect(applied.status.message).toMatch(/policy 'copies'.*the apply configuration of a mutation would be \d+ bytes, over the limit of 2000 per value/);
    // Under the default bound the value passes the size check (and the API server's decoding refuses it).
    const decoded = await evaluate(patch, request());
    if (!decoded.allowed) expect(decoded.status.message).not.toContain('over the limit');
  });

  it('nested sharing (2^30 references built by 30 two-element lists) is refused while converting', async () => {
    let value = "'abc'";
    for (let i = 0; i < 30; i++) value = `[${value}].map(v${i}, [v${i}, v${i}])[0]`;
    const set = setOf(mapPolicy({ name: 'nested', jsonPatch: `[JSONPatch{op: "add", path: "/metadata/annotations", value: {"x": ${value}}}]` }));
    const result = await evaluate(set, request());
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.status.message).toContain("policy 'nested'");
    expect(result.status.message).toContain('the result of a mutation expression would be over the limit of 6291456 bytes');
  });
});

describe('the reply patch is held to the bound too', () => {
  const adds = (name: string, failurePolicy: 'Fail' | 'Ignore') =>
    mapPolicy({ name, failurePolicy, apply: `Object{metadata: Object.metadata{annotations: {"${name}": "${'x'.repeat(600)}"}}}` });

  it('each mutation fits, their sum does not: the policies that mutated are answered by their failurePolicy', async () => {
    const strict = await evaluate(setOf(adds('a', 'Fail'), adds('b', 'Ignore')), request(), { guard: guard(60_000, 1000) });
    expect(strict.allowed).toBe(false);
    if (strict.allowed) return;
    expect(strict.status.message).toContain('policy a: its mutation is lost: the reply patch would be');
    expect(strict.outcomes.map((o) => [o.policy, o.result, o.aborted])).toEqual([['a', 'mutated', 'size'], ['b', 'mutated', 'size']]);

    const lenient = await evaluate(setOf(adds('a', 'Ignore'), adds('b', 'Ignore')), request(), { guard: guard(60_000, 1000) });
    expect(lenient).toMatchObject({ allowed: true, patch: [] });
    // Under the default bound the same set is admitted with both annotations.
    const normal = await evaluate(setOf(adds('a', 'Fail'), adds('b', 'Ignore')), request());
    expect(normal.allowed).toBe(true);
    if (normal.allowed) expect(normal.patch).toHaveLength(1);
  });
});

describe('a deadline answers the policy in progress and those not yet run by their failurePolicy', () => {
  it('slow CEL inside the cost budget is stopped at the deadline (HTTP, limits.reviewDeadlineMs)', async () => {
    const set = setOf(mapPolicy(slowPolicy('slow', 'Fail')));
    const response = await post(set, { reviewDeadlineMs: 50 });
    expect(response.allowed).toBe(false);
    expect(response.status.code).toBe(403);
    expect(response.status.message).toContain("policy 'slow'");
    expect(response.status.message).toContain('deadline exceeded');
  });

  it("the API server's ?timeout= shortens the deadline, so the review answers by its policies before the API server gives up", async () => {
    const set = setOf(mapPolicy(slowPolicy('slow', 'Fail')));
    // 600 ms from the API server leave the review 100 ms (webhook-config's rule: at least 500 ms before the
    // timeout); the configured deadline, ten minutes, would let the policy run out of its cost budget first.
    const cut = await post(set, { reviewDeadlineMs: 600_000 }, '/mutate?timeout=600ms');
    expect(cut.allowed).toBe(false);
    expect(cut.status.message).toContain("policy 'slow'");
    expect(cut.status.message).toContain('deadline exceeded');
    // A longer timeout, or none that reads as a duration, leaves the configured deadline in force.
    for (const path of ['/mutate?timeout=30s', '/mutate?timeout=soon']) {
      const response = await post(set, { reviewDeadlineMs: 50 }, path);
      expect(response.status.message).toContain('deadline exceeded');
    }
  });

  it('Ignore for the policy in progress: admitted without its mutation, reported as aborted', async () => {
    const set = setOf(mapPolicy(slowPolicy('slow', 'Ignore')));
    const response = await post(set, { reviewDeadlineMs: 50 });
    expect(response).toEqual({ uid: '705ab4f5-6393-11e8-b7cc-42010a800002', allowed: true });
    const result = await evaluate(set, request(), { guard: steppingGuard(5) });
    expect(result.outcomes).toHaveLength(1);
    expect(result.outcomes[0]).toMatchObject({ policy: 'slow', result: 'error', ignored: true, aborted: 'deadline', failurePolicy: 'Ignore' });
    expect(result.outcomes[0].durationMs).toBeGreaterThan(0);
  });

  it('later policies are answered without running: Fail denies naming the policy, Ignore is skipped and reported', async () => {
    const set = setOf(
      mapPolicy(slowPolicy('a-slow', 'Ignore')),
      mapPolicy({ name: 'b-required', failurePolicy: 'Fail' }),
      mapPolicy({ name: 'c-optional', failurePolicy: 'Ignore' }),
      mapPolicy({ name: 'd-elsewhere', failurePolicy: 'Fail', resources: 'configmaps' }),
    );
    const result = await evaluate(set, request(), { guard: steppingGuard(5) });
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.status.message).toContain("policy 'b-required'");
    expect(result.status.message).toContain('not evaluated: deadline exceeded');
    expect(result.outcomes.map((o) => [o.policy, o.result, o.ignored ?? false, o.aborted])).toEqual([
      ['a-slow', 'error', true, 'deadline'],
      ['b-required', 'error', false, 'deadline'],
      ['c-optional', 'skipped', true, 'deadline'],
      // d-elsewhere does not match a Pod: nothing to answer for it.
    ]);
    // Without b-required the review is admitted: Ignore everywhere.
    const lenient = setOf(mapPolicy(slowPolicy('a-slow', 'Ignore')), mapPolicy({ name: 'c-optional', failurePolicy: 'Ignore' }));
    const admitted = await evaluate(lenient, request(), { guard: steppingGuard(5) });
    expect(admitted.allowed).toBe(true);
    if (admitted.allowed) expect(admitted.patch).toEqual([]);
  });

  it('Kyverno policies after a MAP policy that hit the deadline are answered by their failurePolicy', async () => {
    const set = setOf(mapPolicy(slowPolicy('a-slow', 'Ignore')), kyvernoPolicy('k-optional', 'Ignore'), kyvernoPolicy('k-required', 'Fail'));
    const result = await evaluate(set, request(), { guard: steppingGuard(5) });
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.status.message).toContain('ClusterPolicy/k-required');
    expect(result.status.message).toContain('deadline exceeded');
    expect(result.outcomes.map((o) => [o.engine, o.policy, o.result, o.aborted])).toEqual([
      ['MutatingAdmissionPolicy', 'a-slow', 'error', 'deadline'],
      ['Kyverno', 'ClusterPolicy/k-optional', 'skipped', 'deadline'],
      ['Kyverno', 'ClusterPolicy/k-required', 'error', 'deadline'],
    ]);
  });

  it('200 heavy bindings: bounded by the deadline, every invocation answered', async () => {
    const set = setOf(mapPolicy({ ...slowPolicy('heavy', 'Ignore', 1), bindings: 200 }));
    const response = await post(set, { reviewDeadlineMs: 100 });
    expect(response.allowed).toBe(true);
    const result = await evaluate(set, request(), { guard: steppingGuard(100) });
    expect(result.allowed).toBe(true);
    expect(result.outcomes).toHaveLength(200);
    const notRun = result.outcomes.filter((o) => o.result === 'skipped' && o.aborted === 'deadline');
    const stopped = result.outcomes.filter((o) => o.result === 'error' && o.aborted === 'deadline');
    expect(stopped).toHaveLength(1);
    // Each invocation takes tens of milliseconds: a 100 ms deadline leaves nearly all of them unrun.
    expect(notRun.length).toBeGreaterThan(150);
    expect(notRun[0].detail).toContain('not evaluated: deadline exceeded');
  });
});

describe('policy ordinals and stopped reviews', () => {
  const docs = [
    mapPolicy({ name: 'p0', failurePolicy: 'Fail' }),
    mapPolicy({ name: 'p1', failurePolicy: 'Ignore' }),
    mapPolicy({ name: 'p2', failurePolicy: 'Fail', resources: 'configmaps' }),
    kyvernoPolicy('k0', 'Ignore'),
    kyvernoPolicy('k1', 'Fail'),
  ];

  it('pipelinePolicies lists MAP policies, then Kyverno policies; onPolicyStart reports their ordinals', async () => {
    const set = setOf(...docs);
    expect(pipelinePolicies(set).map((p) => `${p.engine}:${p.name}:${p.failurePolicy}`)).toEqual([
      'MutatingAdmissionPolicy:p0:Fail',
      'MutatingAdmissionPolicy:p1:Ignore',
      'MutatingAdmissionPolicy:p2:Fail',
      'Kyverno:ClusterPolicy/k0:Ignore',
      'Kyverno:ClusterPolicy/k1:Fail',
    ]);
    const started: number[] = [];
    const result = await evaluate(set, request(), { onPolicyStart: (i) => started.push(i) });
    expect(result.allowed).toBe(true);
    // p2 does not match a Pod; the Kyverno step reports at least its first policy.
    expect(started.slice(0, 3)).toEqual([0, 1, 3]);
    expect([...started].sort((a, b) => a - b)).toEqual(started);
    expect(result.outcomes.every((o) => typeof o.durationMs === 'number' && o.durationMs >= 0)).toBe(true);
  });

  it('answerStoppedReview answers the stopped policy and the later matching ones; no patch survives', () => {
    const set = setOf(...docs);
    const fromP1: EngineResult = answerStoppedReview(set, request(), 1, 'deadline');
    expect(fromP1.allowed).toBe(false);
    if (fromP1.allowed) return;
    // p0 (Fail) had completed: what it changed is lost, so it denies; p1 (Ignore) skipped, p2 does not
    // match, k0 (Ignore) skipped, k1 (Fail) denies too.
    expect(fromP1.outcomes.map((o) => [o.policy, o.result, o.aborted])).toEqual([
      ['p0', 'error', 'deadline'],
      ['p1', 'skipped', 'deadline'],
      ['ClusterPolicy/k0', 'skipped', 'deadline'],
      ['ClusterPolicy/k1', 'error', 'deadline'],
    ]);
    // The stopped part speaks first: k1, not evaluated.
    expect(fromP1.status.message).toContain('ClusterPolicy/k1: not evaluated: deadline exceeded');
    expect(fromP1.outcomes[0].detail).toContain('completed, but whatever it changed is lost: deadline exceeded');
    expect(fromP1.outcomes[1].detail).toContain('not evaluated: deadline exceeded');
    expect(fromP1.outcomes[1].detail).toContain('mutations of the policies that had completed are lost');

    const fromP0 = answerStoppedReview(set, request(), 0, 'cancelled');
    expect(fromP0.allowed).toBe(false);
    if (!fromP0.allowed) expect(fromP0.status.message).toContain("policy 'p0'");
  });

  it('a Fail policy that had completed denies a review stopped later: its mutation may be among those lost', () => {
    // p0 (Fail) ran, then k0 ran out of heap: admitting the request would drop p0's mutation silently.
    const result = answerStoppedReview(setOf(docs[0], docs[1], docs[3]), request(), 2, 'size');
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    expect(result.status.code).toBe(403);
    expect(result.status.message).toContain("policy 'p0'");
    expect(result.status.message).toContain('completed, but whatever it changed is lost: out of memory');
    expect(result.outcomes.map((o) => [o.policy, o.result, o.aborted])).toEqual([
      ['p0', 'error', 'size'],
      ['p1', 'skipped', 'size'],
      ['ClusterPolicy/k0', 'skipped', 'size'],
    ]);
  });

  it('outOfHeap: the policies named are answered by failurePolicy unrun, the others run and apply', async () => {
    const set = setOf(...docs);
    const started: number[] = [];
    const result = await evaluate(set, request(), { outOfHeap: [1, 3], onPolicyStart: (i) => started.push(i) });
    expect(result.allowed).toBe(true);
    if (!result.allowed) return;
    // Ordinals of the whole set, though p1 and k0 are not in what runs (the Kyverno step reports its first
    // twice), then the whole set's count: every policy has run.
    expect([...new Set(started)]).toEqual([0, 4, 5]);
    expect(patchedObject({ patch: Buffer.from(JSON.stringify(result.patch)).toString('base64') }).metadata.labels).toEqual({ app: 'web', p0: 'done', k1: 'done' });
    expect(result.outcomes.map((o) => [o.policy, o.result, o.aborted])).toEqual([
      ['p0', 'mutated', undefined],
      ['ClusterPolicy/k1', 'mutated', undefined],
      ['p1', 'skipped', 'size'],
      ['ClusterPolicy/k0', 'skipped', 'size'],
    ]);
    expect(result.outcomes[2].detail).toContain('left out: out of memory');
    expect(result.warnings).toEqual(['policy p1 was not applied: out of memory', 'policy ClusterPolicy/k0 was not applied: out of memory']);
  });

  it('outOfHeap: a Fail policy left out denies; ordinals outside the set change nothing', async () => {
    const set = setOf(...docs);
    const denied = await evaluate(set, request(), { outOfHeap: [4] });
    expect(denied.allowed).toBe(false);
    if (!denied.allowed) {
      expect(denied.status.code).toBe(403);
      expect(denied.status.message).toContain('ClusterPolicy/k1');
      expect(denied.status.message).toContain('left out: out of memory');
    }
    const whole = await evaluate(set, request());
    const outside = await evaluate(set, request(), { outOfHeap: [-1, 5, 1.5] });
    expect(outside).toMatchObject({ allowed: true, warnings: [] });
    expect(outside.outcomes.map((o) => [o.policy, o.result])).toEqual(whole.outcomes.map((o) => [o.policy, o.result]));
  });

  it('the stopped part speaks first, across engines: stopped at k1, the denial names k1, not the completed p0', () => {
    const result = answerStoppedReview(setOf(...docs), request(), 4, 'size');
    expect(result.allowed).toBe(false);
    if (!result.allowed) expect(result.status.message).toContain('ClusterPolicy/k1: not evaluated: out of memory');
  });

  it('a stopped review that had left policies out answers them as left out, with their own reason', () => {
    // p1 (Ignore) was left out after a heap death; the second evaluation stopped at k0 past its deadline.
    const result = answerStoppedReview(setOf(docs[1], docs[3]), request(), 1, 'deadline', [0]);
    expect(result).toMatchObject({ allowed: true, patch: [] });
    expect(result.outcomes.map((o) => [o.policy, o.result, o.aborted])).toEqual([
      ['ClusterPolicy/k0', 'skipped', 'deadline'],
      ['p1', 'skipped', 'size'],
    ]);
    expect(result.outcomes[1].detail).toContain('left out: out of memory');
    expect(result.warnings).toEqual(['policy ClusterPolicy/k0 was not applied: deadline exceeded', 'policy p1 was not applied: out of memory']);
  });

  it('admitted without the Ignore policies of a stopped review, the reply warns of each', () => {
    const result = answerStoppedReview(setOf(docs[1], docs[3]), request(), 1, 'size');
    expect(result).toMatchObject({ allowed: true, patch: [] });
    expect(result.outcomes.map((o) => [o.policy, o.result, o.aborted])).toEqual([
      ['p1', 'skipped', 'size'],
      ['ClusterPolicy/k0', 'skipped', 'size'],
    ]);
    expect(result.outcomes[0].detail).toContain('completed, but whatever it changed is lost: out of memory');
    expect(result.warnings).toEqual(['policy p1 was not applied: out of memory', 'policy ClusterPolicy/k0 was not applied: out of memory']);
  });
});
