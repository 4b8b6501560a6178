/**
 * The emulated reinvocation pass (spec/map.md §11) through the engine, against kube-apiserver's
 * admission chain: pkg/admission/reinvocation.go (reinvoker.Admit) and
 * pkg/admission/plugin/policy/mutating/dispatcher.go (dispatchInvocations).
 */
import { describe, expect, it } from 'vitest';
import { evaluate, type EngineResult } from '../../src/engine/index.js';
import { parseJson } from '../../src/json/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { jsonPatch as patch, policy, set, type Obj } from './helpers.js';

/** `policy` with reinvocationPolicy IfNeeded. */
function ifNeeded(name: string, mutations: Obj[], failurePolicy = 'Fail'): Obj {
  const p = policy(name, mutations, failurePolicy);
  p.spec.reinvocationPolicy = 'IfNeeded';
  return p;
}

function pod(labels: Record<string, string>): any {
  return parseJson(
    JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels }, spec: { containers: [{ name: 'c', image: 'i' }] } }),
  );
}

async function run(labels: Record<string, string>, ...policies: Obj[]): Promise<EngineResult> {
  return evaluate(set(...policies), podRequest(pod(labels), { uid: 'u' }));
}

function withConditions(p: Obj, conditions: { name: string; expression: string }[]): Obj {
  p.spec.matchConditions = conditions;
  return p;
}

const passes = (r: EngineResult) => r.outcomes.map((o) => `${o.policy}:${o.pass}:${o.result}`);

describe('no reinvocation pass after a denial', () => {
  // reinvoker.Admit returns the chain's error before it looks at ShouldReinvoke: a request the first pass
  // denied is never run again, so each error is one cause.
  it('reports an IfNeeded policy that failed once, though its first mutation changed the object', async () => {
    const r = await run(
      { app: 'web' },
      ifNeeded('a', [patch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]'), patch('[JSONPatch{op: "remove", path: "/metadata/nothere"}]')]),
    );
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    const text = "policy 'a' with binding 'b-a' denied request: JSON Patch: error in remove for path: '/metadata/nothere': Unable to remove nonexistent key: nothere: missing value";
    expect(r.status.message).toBe(text);
    expect(r.status.details?.causes).toEqual([{ message: text }]);
    expect(passes(r)).toEqual(['a:1:error']);
  });

  it('does not run the second pass when another policy failed under Fail', async () => {
    const r = await run(
      { app: 'web' },
      ifNeeded('a', [patch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]')]),
      policy('b', [patch('[JSONPatch{op: "remove", path: "/metadata/nothere"}]')]),
    );
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status.details?.causes).toHaveLength(1);
    expect(passes(r)).toEqual(['a:1:mutated', 'b:1:error']);
  });

  it('still runs it when the failure was under failurePolicy Ignore (dropped, not a denial)', async () => {
    const r = await run(
      { app: 'web' },
      ifNeeded('a', [patch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]')]),
      policy('b', [patch('[JSONPatch{op: "remove", path: "/metadata/nothere"}]')], 'Ignore'),
    );
    expect(r.allowed).toBe(true);
    expect(passes(r)).toEqual(['a:1:mutated', 'b:1:error', 'a:2:unchanged']);
  });
});

describe('what requests the reinvocation pass', () => {
  // dispatchInvocations marks the IfNeeded invocations that ran before an invocation that changed the
  // object, and at the end of the pass, when any mutation was applied (VersionedAttributes.Dirty, set by
  // UpdateObject on every successful patch), marks the rest and sets ShouldReinvoke.
  it('a later policy undoing an earlier IfNeeded one: no net change, the earlier one runs again', async () => {
    const r = await run(
      { app: 'web' },
      ifNeeded('a-add', [patch('[JSONPatch{op: "add", path: "/metadata/labels/t", value: "1"}]')]),
      policy('b-remove', [patch('[JSONPatch{op: "remove", path: "/metadata/labels/t"}]')]),
    );
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect((r.object as any).metadata.labels).toEqual({ app: 'web', t: '1' });
    expect(r.patch).toEqual([{ op: 'add', path: '/metadata/labels/t', value: '1' }]);
    expect(passes(r)).toEqual(['a-add:1:mutated', 'b-remove:1:mutated', 'a-add:2:mutated']);
  });

  it('a mutation applied without changing anything', async () => {
    const r = await run({ app: 'web' }, ifNeeded('a', [patch('[JSONPatch{op: "replace", path: "/metadata/labels/app", value: "web"}]')]));
    expect(passes(r)).toEqual(['a:1:unchanged', 'a:2:unchanged']);
  });

  it('a JSON patch whose test failed (kube-apiserver applies the object unchanged)', async () => {
    const r = await run({ app: 'web' }, ifNeeded('a', [patch('[JSONPatch{op: "test", path: "/metadata/labels/app", value: "db"}]')]));
    expect(passes(r)).toEqual(['a:1:unchanged', 'a:2:unchanged']);
  });

  it('not when no mutation was applied', async () => {
    const r = await run({ app: 'web' }, ifNeeded('a', [patch('[JSONPatch{op: "remove", path: "/metadata/nothere"}]')], 'Ignore'));
    expect(r.allowed).toBe(true);
    expect(passes(r)).toEqual(['a:1:error']);
  });
});

describe('the second pass evaluates the matchConditions of every invocation', () => {
  // In the reinvocation pass dispatchInvocations evaluates each invocation's matchConditions before
  // its ShouldReinvoke check, and the pass is requested whenever a mutation was applied (Dirty), with or
  // without an IfNeeded policy: a condition that now errors denies under Fail, though its policy does not run.
  const gone = { name: 'gone-is-yes', expression: 'object.metadata.labels.gone == "yes"' };
  const threePolicies = (first: 'IfNeeded' | 'Never', failurePolicy: string) => [
    first === 'IfNeeded' ? ifNeeded('a', [patch('[JSONPatch{op: "add", path: "/metadata/labels/a", value: "1"}]')]) : policy('a', [patch('[JSONPatch{op: "add", path: "/metadata/labels/a", value: "1"}]')]),
    withConditions(policy('b', [patch('[JSONPatch{op: "add", path: "/metadata/labels/b", value: "1"}]')], failurePolicy), [gone]),
    policy('c', [patch('[JSONPatch{op: "remove", path: "/metadata/labels/gone"}]')]),
  ];
  const error = `policy 'b' with binding 'b-b' denied request: expression 'object.metadata.labels.gone == "yes"' resulted in error: no such key: gone`;

  it.each(['IfNeeded', 'Never'] as const)('a condition that errors on the mutated object denies under Fail (first policy %s)', async (first) => {
    const r = await run({ app: 'web', gone: 'no' }, ...threePolicies(first, 'Fail'));
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status).toMatchObject({ code: 403, reason: 'Invalid', message: error, details: { causes: [{ message: error }] } });
    expect(passes(r)).toEqual([
      'a:1:mutated',
      'b:1:skipped',
      'c:1:mutated',
      ...(first === 'IfNeeded' ? ['a:2:unchanged'] : []),
      'b:2:error',
    ]);
  });

  it('is dropped under Ignore', async () => {
    const r = await run({ app: 'web', gone: 'no' }, ...threePolicies('IfNeeded', 'Ignore'));
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect((r.object as any).metadata.labels).toEqual({ app: 'web', a: '1' });
    expect(passes(r)).toEqual(['a:1:mutated', 'b:1:skipped', 'c:1:mutated', 'a:2:unchanged']);
  });

  it('a condition reading through a list a later policy changed is evaluated again (and errors)', async () => {
    // b's condition held on the object it first saw; c then changed the container the condition reads.
    const r = await run(
      { app: 'web' },
      withConditions(policy('b', [patch('[JSONPatch{op: "add", path: "/metadata/labels/b", value: "1"}]')]), [
        { name: 'numeric', expression: 'int(object.spec.containers[0].image.replace("i", "1")) >= 0' },
      ]),
      policy('c', [patch('[JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "nginx"}]')]),
    );
    expect(r.allowed).toBe(false);
    expect(passes(r)).toEqual(['b:1:mutated', 'c:1:mutated', 'b:2:error']);
  });

  it('an invocation skipped in the first pass does not run in the second, though its conditions now hold', async () => {
    const r = await run(
      { app: 'web' },
      withConditions(ifNeeded('a', [patch('[JSONPatch{op: "add", path: "/metadata/labels/a", value: "1"}]')]), [{ name: 'has-b', expression: '"b" in object.metadata.labels' }]),
      policy('b', [patch('[JSONPatch{op: "add", path: "/metadata/labels/b", value: "1"}]')]),
    );
    expect(passes(r)).toEqual(['a:1:skipped', 'b:1:mutated']);
  });
});

describe('the second pass matches the object the first produced', () => {
  // The reinvocation pass is a new Dispatch of the policy plugin: bindings are matched again, here by an
  // objectSelector on a label a later policy removed, so the IfNeeded policy no longer applies.
  it('an IfNeeded invocation whose binding no longer selects the object is not run again', async () => {
    const a = ifNeeded('a', [patch('[JSONPatch{op: "add", path: "/metadata/annotations", value: {"a": "1"}}]')]);
    const b = policy('b', [patch('[JSONPatch{op: "remove", path: "/metadata/labels/managed"}]')]);
    const binding = (name: string, policyName: string, matchResources?: Obj) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name },
      spec: { policyName, ...(matchResources ? { matchResources } : {}) },
    });
    const s = buildPolicySet([
      parseDocuments('t.json', JSON.stringify([a, b, binding('b-a', 'a', { objectSelector: { matchLabels: { managed: 'true' } } }), binding('b-b', 'b')])),
    ]);
    expect(s.problems).toEqual([]);
    const r = await evaluate(s, podRequest(pod({ app: 'web', managed: 'true' }), { uid: 'u' }));
    expect(passes(r)).toEqual(['a:1:mutated', 'b:1:mutated']);
  });
});
