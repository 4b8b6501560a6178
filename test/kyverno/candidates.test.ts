/**
 * runKyvernoPolicies visits only the policies a request may match by its kind (src/kyverno/candidates.ts).
 * Exact only if every policy left out neither matches nor throws in match/exclude for that request, and
 * runs nothing else (webhook matchConditions): checked here over every kinds form Kyverno accepts and
 * requests of many kinds, including subresources matched by their top-level kind and autogen'd rules.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import type { JsonObject } from '../../src/json/index.js';
import { reviewPlan } from '../../src/kyverno/candidates.js';
import { compileKyvernoPolicy, runKyvernoPolicies, sortKyvernoPolicies, type CompiledKyvernoPolicy } from '../../src/kyverno/index.js';
import { whyNotMatched } from '../../src/kyverno/match/match.js';
import { matchSubject } from '../../src/kyverno/run.js';

const KINDS = ['Pod', 'v1/Pod', '*/Pod', 'Pod/status', 'Pod/*', 'Pod.status', 'apps/v1/Deployment', 'apps/*/Deployment', 'Deployment/scale', 'Pod/binding', '*', '*/*', 'Po*', 'Namespace', 'Lease', 'Foo', 'example.io/v1/Foo/scale', 'ConfigMap'];

let n = 0;
function compile(doc: JsonObject): CompiledKyvernoPolicy {
  const result = compileKyvernoPolicy(doc);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.policy;
}

function policy(rules: JsonObject[], extra: { namespace?: string; spec?: JsonObject; autogen?: boolean } = {}): CompiledKyvernoPolicy {
  const name = `p${n++}`;
  const metadata: JsonObject = { name };
  // Each policy its own label: run together or alone, a policy changes the object alike.
  const label = { patchStrategicMerge: { metadata: { labels: { [name]: '{{ request.kind.kind }}' } } } };
  if (extra.namespace) metadata.namespace = extra.namespace;
  if (!extra.autogen) metadata.annotations = { 'pod-policies.kyverno.io/autogen-controllers': 'none' };
  return compile({
    apiVersion: 'kyverno.io/v1',
    kind: extra.namespace ? 'Policy' : 'ClusterPolicy',
    metadata,
    spec: { background: false, rules: rules.map((r, i) => ({ name: `r${i}`, mutate: label, ...r })), ...extra.spec },
  });
}

/** Policies of every match form, over the kinds above. */
function policies(): CompiledKyvernoPolicy[] {
  const out: CompiledKyvernoPolicy[] = [];
  for (const kind of KINDS) {
    out.push(policy([{ match: { any: [{ resources: { kinds: [kind] } }] } }]));
    out.push(policy([{ match: { resources: { kinds: [kind] } } }]));
    out.push(policy([{ match: { all: [{ resources: { kinds: [kind] } }, { resources: { kinds: ['Pod', 'Lease'] } }] } }]));
    // Throws for a namespaced request whose namespace's labels are unknown: an outcome, so a candidate.
    out.push(policy([{ match: { any: [{ resources: { kinds: [kind], namespaceSelector: { matchLabels: { team: 'a' } } } }] } }]));
    // `all`: the first filter is tested first, so it alone decides whether the rule can throw.
    out.push(policy([{ match: { all: [{ resources: { kinds: [kind], namespaceSelector: { matchLabels: { team: 'a' } } } }, { resources: { kinds: ['Lease'] } }] } }]));
    out.push(policy([{ match: { any: [{ resources: { kinds: ['ConfigMap'] } }, { resources: { kinds: [kind], operations: ['UPDATE'] } }] }, exclude: { any: [{ resources: { kinds: ['Pod'], names: ['x*'] } }] } }]));
    out.push(policy([{ match: { any: [{ resources: { kinds: ['Secret'] } }] } }, { match: { any: [{ resources: { kinds: [kind], names: ['web*'] } }] } }], { namespace: 'shop' }));
  }
  out.push(policy([{ match: { any: [{ resources: { kinds: ['Pod'] } }] } }], { autogen: true }));
  // `spec.admission: false` (Kyverno allows it for validate policies only): never a candidate.
  out.push({ ...policy([{ match: { any: [{ resources: { kinds: ['Pod'] } }] } }]), admission: false });
  out.push(policy([{ match: { any: [{ resources: { kinds: ['Secret'] } }] } }], { spec: { webhookConfiguration: { matchConditions: [{ name: 'c', expression: 'object.nope == 1' }] } } }));
  return out;
}

function request(kind: [string, string, string], resource: [string, string, string], subResource?: string, namespace = 'shop'): AdmissionRequest {
  const [group, version, k] = kind;
  const object = { apiVersion: group ? `${group}/${version}` : version, kind: k, metadata: { name: 'web-1', namespace } };
  return {
    uid: 'u',
    kind: { group, version, kind: k },
    resource: { group: resource[0], version: resource[1], resource: resource[2] },
    ...(subResource ? { subResource } : {}),
    name: 'web-1',
    namespace,
    operation: 'UPDATE',
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object,
    oldObject: object,
  } as unknown as AdmissionRequest;
}

const REQUESTS: AdmissionRequest[] = [
  request(['', 'v1', 'Pod'], ['', 'v1', 'pods']),
  request(['', 'v1', 'Pod'], ['', 'v1', 'pods'], 'status'),
  request(['', 'v1', 'Pod'], ['', 'v1', 'pods'], 'ephemeralcontainers'),
  request(['', 'v1', 'Binding'], ['', 'v1', 'pods'], 'binding'),
  request(['apps', 'v1', 'Deployment'], ['apps', 'v1', 'deployments']),
  request(['autoscaling', 'v1', 'Scale'], ['apps', 'v1', 'deployments'], 'scale'),
  request(['autoscaling', 'v1', 'Scale'], ['example.io', 'v1', 'foos'], 'scale'),
  request(['coordination.k8s.io', 'v1', 'Lease'], ['coordination.k8s.io', 'v1', 'leases']),
  request(['', 'v1', 'Namespace'], ['', 'v1', 'namespaces'], undefined, ''),
  request(['', 'v1', 'ConfigMap'], ['', 'v1', 'configmaps'], undefined, 'other'),
  request(['', 'v1', 'Secret'], ['', 'v1', 'secrets']),
  request(['', '', ''], ['', '', '']),
];

const resourceKind = (group: string, resource: string) => (group === 'example.io' && resource === 'foos' ? 'Foo' : undefined);

describe('candidate policies by kind', () => {
  const all = policies();
  const order = sortKyvernoPolicies(all);
  const plan = reviewPlan(all, order);

  it('leave out only policies none of whose rules matches or throws, and that have no webhook conditions', () => {
    let left = 0;
    for (const req of REQUESTS) {
      const subject = matchSubject({ request: req, resourceKind }, req.object!);
      const candidates = new Set(plan.candidates(subject.kind));
      order.forEach((p, at) => {
        if (!p.admission) return expect(candidates.has(at)).toBe(false);
        if (candidates.has(at)) return;
        left++;
        expect(p.webhookConditions, p.id).toBeUndefined();
        for (const rule of p.rules) expect(whyNotMatched(rule.match, rule.exclude, subject), `${p.id} ${req.kind.kind}`).toBeDefined();
      });
      expect([...candidates]).toEqual([...candidates].sort((a, b) => a - b));
    }
    // The index does leave policies out (else this test proves nothing).
    expect(left).toBeGreaterThan(REQUESTS.length * 20);
  });

  it('a frozen set gives the outcomes and progress of one policy at a time', async () => {
    const frozen = Object.freeze([...all]);
    for (const req of REQUESTS) {
      const started: number[] = [];
      const result = await runKyvernoPolicies(frozen, { request: req, resourceKind, onPolicyStart: (i) => started.push(i) });
      const oneByOne: unknown[] = [];
      for (const p of order) {
        const alone = await runKyvernoPolicies([p], { request: req, resourceKind });
        oneByOne.push(...alone.policies.map((o) => ({ ...o, durationMs: 0, rules: o.rules.map((r) => ({ ...r, durationMs: 0 })) })));
      }
      expect(result.policies.map((o) => ({ ...o, durationMs: 0, rules: o.rules.map((r) => ({ ...r, durationMs: 0 })) }))).toEqual(oneByOne);
      // The last policy a visit of every policy would have started (admission, namespace fits) is the last reported.
      const fits = order.filter((p) => p.admission && (p.namespace === undefined || (req.kind.kind !== 'Namespace' && (req.namespace ?? '') === p.namespace)));
      expect(started.at(-1)).toBe(all.indexOf(fits.at(-1)!));
    }
  });
});
