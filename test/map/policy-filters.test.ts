import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import { dispatch, matchAttributes, type DispatchContext } from '../../src/map/dispatch.js';
import { NO_EQUIVALENTS, type EquivalenceProvider } from '../../src/map/equivalence.js';
import { matchResources } from '../../src/map/match-resources.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';

// A small deterministic generator.
let state = 777;
const next = () => ((state = (state * 1103515245 + 12345) & 0x7fffffff), state >>> 16);
const pick = <T>(xs: readonly T[]): T => xs[next() % xs.length];

// No `*` version: the extra equivalent below (version v0) is matched by no rule.
const GROUPS = ['', 'apps', 'example.io', 'coordination.k8s.io', '*'];
const VERSIONS = ['v1', 'v1beta1'];
const OPS = ['CREATE', 'UPDATE', '*'];
const RESOURCES = ['pods', 'deployments', 'leases', 'pods/status', '*', '*/*', '*/status', 'leases/*'];
const rule = () => ({ apiGroups: [pick(GROUPS)], apiVersions: [pick(VERSIONS)], operations: [pick(OPS)], resources: [pick(RESOURCES)] });
const rules = (min: number) => Array.from({ length: min + (next() % 3) }, rule);

function randomSet(n: number) {
  const docs: object[] = [];
  for (let i = 0; i < n; i++) {
    const matchPolicy = pick(['Equivalent', 'Exact', undefined]);
    docs.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: `p${i}` },
      spec: {
        failurePolicy: next() % 10 === 0 ? 'Fail' : 'Ignore',
        reinvocationPolicy: pick(['Never', 'IfNeeded']),
        matchConstraints: {
          resourceRules: rules(1),
          excludeResourceRules: next() % 4 === 0 ? rules(1) : [],
          // An object selector makes the reinvocation pass match again (collect) instead of reusing the first.
          ...(next() % 5 === 0 ? { objectSelector: { matchLabels: { a: 'b' } } } : {}),
          ...(matchPolicy ? { matchPolicy } : {}),
        },
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: `[JSONPatch{op: "add", path: "/metadata/labels/p${i}", value: "x"}]` } }],
      },
    });
    for (const b of next() % 3 === 0 ? ['a', 'b'] : ['a']) {
      docs.push({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingAdmissionPolicyBinding',
        metadata: { name: `p${i}-${b}` },
        spec: { policyName: `p${i}`, ...(next() % 3 === 0 ? { matchResources: { resourceRules: rules(0) } } : {}) },
      });
    }
  }
  const s = buildPolicySet([parseDocuments('t.json', JSON.stringify(docs))]);
  expect(s.problems).toEqual([]);
  return s;
}

/** The same resources as NO_EQUIVALENTS plus one no rule matches: the filters' shortcut is then off for Equivalent policies. */
const EXTRA: EquivalenceProvider = {
  equivalentResources: (r) => [r, { group: 'zz.invalid', version: 'v0', resource: r.resource }],
  kindFor: () => undefined,
};

function request(group: string, version: string, resource: string, subResource: string, operation: string): AdmissionRequest {
  const object = { apiVersion: group ? `${group}/${version}` : version, kind: 'Thing', metadata: { name: 'x', namespace: 'shop', labels: { a: 'b' } } };
  return {
    uid: 'u',
    kind: { group, version, kind: 'Thing' },
    resource: { group, version, resource },
    ...(subResource ? { subResource } : {}),
    namespace: 'shop',
    name: 'x',
    operation,
    userInfo: { username: 'admin' },
    object,
    oldObject: operation === 'UPDATE' ? object : null,
  } as AdmissionRequest;
}

const withoutTimes = (r: ReturnType<typeof dispatch>) => ({ ...r, traces: r.traces.map(({ durationMs, ...t }) => t) });

describe('dispatch with the rule filters and the group index', () => {
  it('invokes exactly what the exact matcher matches, in order, as without the shortcut', () => {
    const s = randomSet(80);
    const policies = s.mutatingPolicies;
    const ctx = (equivalence: EquivalenceProvider): DispatchContext => ({ params: s.objects, namespaces: () => undefined, equivalence });
    let invoked = 0;
    let second = 0;
    for (const group of ['', 'apps', 'example.io', 'coordination.k8s.io', 'other.io']) {
      for (const version of VERSIONS) {
        for (const resource of ['pods', 'deployments', 'leases', 'configmaps']) {
          for (const sub of ['', 'status']) {
            for (const op of ['CREATE', 'UPDATE']) {
              const req = request(group, version, resource, sub, op);
              const fast = dispatch(policies, req, ctx(NO_EQUIVALENTS));
              const full = dispatch(policies, req, ctx(EXTRA));
              expect(withoutTimes(fast)).toEqual(withoutTimes(full));
              // Pass 1 runs each (policy, binding) the exact matcher matches, in the set's order.
              const attr = matchAttributes(req);
              const m = { equivalence: NO_EQUIVALENTS, namespaces: () => undefined };
              const expected: string[] = [];
              for (const bound of policies) {
                if (!matchResources(bound.policy.matchConstraints!, attr, m).matches) continue;
                for (const b of bound.bindings) if (!b.matchResources || matchResources(b.matchResources, attr, m).matches) expected.push(`${bound.policy.name}/${b.name}`);
              }
              expect(fast.traces.filter((t) => t.pass === 1).map((t) => `${t.policy}/${t.binding}`)).toEqual(expected);
              invoked += expected.length;
              second += fast.traces.filter((t) => t.pass === 2).length;
            }
          }
        }
      }
    }
    expect(invoked).toBeGreaterThan(100);
    // The reinvocation pass (which matches again) ran too.
    expect(second).toBeGreaterThan(0);
  });
});
