/**
 * `mutated` or `unchanged`: what a MutatingAdmissionPolicy invocation reports depends on whether the
 * object it returns differs in value from the one it got, however the mutations went about it (the
 * dispatcher takes a proof of change from the mutation when it has one, and compares otherwise).
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { applyConfig as apply, jsonPatch as patch, policy, set, type Obj } from './helpers.js';

const request = podRequest(
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels: { team: 'blue', tier: 'web' } },
    spec: { containers: [{ name: 'app', image: 'app:1', imagePullPolicy: 'Always' }] },
  },
  { uid: 'u-1', userInfo: {} },
);

async function resultOf(mutations: Obj[]): Promise<string> {
  const r = await evaluate(set(policy('p', mutations)), request);
  expect(r.outcomes).toHaveLength(1);
  return r.outcomes[0].result;
}

describe('mutated or unchanged', () => {
  it.each([
    ['a JSON patch adding a label', [patch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]')], 'mutated'],
    ['a JSON patch writing the value already there', [patch('[JSONPatch{op: "replace", path: "/metadata/labels/team", value: "blue"}]')], 'unchanged'],
    [
      'a JSON patch removing a label and adding it back',
      [patch('[JSONPatch{op: "remove", path: "/metadata/labels/team"}, JSONPatch{op: "add", path: "/metadata/labels/team", value: "blue"}]')],
      'unchanged',
    ],
    [
      'a JSON patch whose last operation writes what was there, after a real change',
      [patch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}, JSONPatch{op: "replace", path: "/metadata/labels/team", value: "blue"}]')],
      'mutated',
    ],
    ['a JSON patch changing a list item', [patch('[JSONPatch{op: "replace", path: "/spec/containers/0/image", value: "app:2"}]')], 'mutated'],
    ['an apply configuration adding a label', [apply('Object{metadata: Object.metadata{labels: {"x": "y"}}}')], 'mutated'],
    ['an apply configuration changing a label', [apply('Object{metadata: Object.metadata{labels: {"team": "red"}}}')], 'mutated'],
    ['an apply configuration setting a label as it is', [apply('Object{metadata: Object.metadata{labels: {"team": "blue"}}}')], 'unchanged'],
    [
      'an apply configuration changing a container (under a list)',
      [apply('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", image: "app:2"}]}}')],
      'mutated',
    ],
    [
      'an apply configuration setting a container as it is',
      [apply('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", image: "app:1"}]}}')],
      'unchanged',
    ],
    [
      'a second mutation undoing the first',
      [apply('Object{metadata: Object.metadata{labels: {"x": "y"}}}'), patch('[JSONPatch{op: "remove", path: "/metadata/labels/x"}]')],
      'unchanged',
    ],
    [
      'a first mutation changing nothing, the second adding',
      [patch('[JSONPatch{op: "replace", path: "/metadata/labels/team", value: "blue"}]'), patch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]')],
      'mutated',
    ],
  ])('%s: %s', async (_what, mutations, expected) => {
    expect(await resultOf(mutations)).toBe(expected);
  });
});

/**
 * kube-apiserver writes each mutation back as it succeeds (dispatcher_writeback_test.go
 * TestMutationFailureAfterEarlierSuccessWritesBackEarlierMutation): when a later mutation of the same
 * policy fails and the policy's failurePolicy is Ignore, what the earlier ones did stays.
 */
describe('a failing mutation after a successful one', () => {
  it('keeps the earlier mutation under failurePolicy Ignore', async () => {
    const s = set(
      policy(
        'p',
        [patch('[JSONPatch{op: "add", path: "/metadata/labels/success", value: "set"}]'), patch('[JSONPatch{op: "replace", path: "/spec/missing/x", value: "v"}]')],
        'Ignore',
      ),
    );
    const r = await evaluate(s, request);
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect((r.object as any).metadata.labels).toEqual({ team: 'blue', tier: 'web', success: 'set' });
    expect(r.outcomes.map((o) => o.result)).toEqual(['error']);
  });
});
