/**
 * The pipeline's rules through the public API (parseDocuments → buildPolicySet → evaluate): what is
 * never mutated (§0), matching and namespaces (§2, DESIGN "What the webhook cannot see"), params (§4),
 * matchConditions (§5), order (§6), failure handling and the 403 shape (§10), reinvocation (§11), the
 * reply patch (§14).
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/types.js';
import { evaluate, type EngineResult } from '../../src/engine/index.js';
import { applyPatch } from '../../src/jsonpatch/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';

type Obj = Record<string, any>;

function policy(name: string, spec: Obj): Obj {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ operations: ['CREATE', 'UPDATE', 'CONNECT'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] },
      reinvocationPolicy: 'Never',
      ...spec,
    },
  };
}

function binding(name: string, policyName: string, spec: Obj = {}): Obj {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, ...spec } };
}

/** An ApplyConfiguration mutation that sets one label. */
function setLabel(key: string, valueExpr: string): Obj {
  return { patchType: 'ApplyConfiguration', applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {"${key}": ${valueExpr}}}}` } };
}

function set(...docs: Obj[]) {
  const s = buildPolicySet([parseDocuments('t.json', JSON.stringify(docs))]);
  const ignored = s.problems.filter((p) => p.effect === 'ignored');
  expect(ignored, JSON.stringify(ignored)).toEqual([]);
  return s;
}

function configMap(name: string, namespace: string, data: Obj, labels: Obj = {}): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data };
}

function pod(labels: Obj = {}, namespace = 'default'): Obj {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
}

/** A CREATE of pod() in `default` by alice (group dev), with `over` applied. */
function req(over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return podRequest(pod(), { uid: 'u1', name: 'p', namespace: 'default', userInfo: { username: 'alice', groups: ['dev'] }, ...over });
}

function labelsOf(r: EngineResult): Obj | undefined {
  expect(r.allowed, JSON.stringify(r)).toBe(true);
  return r.allowed ? (r.object as Obj).metadata.labels : undefined;
}

function denied(r: EngineResult) {
  expect(r.allowed, JSON.stringify(r)).toBe(false);
  if (r.allowed) throw new Error('allowed');
  return r.status;
}

describe('§0 requests that are never mutated', () => {
  const s = () => set(policy('p', { mutations: [setLabel('a', '"1"')] }), binding('b', 'p'));

  it('mutates CREATE', async () => {
    expect(labelsOf(await evaluate(s(), req()))).toEqual({ a: '1' });
  });

  it('never DELETE, even with operations "*"', async () => {
    const r = await evaluate(set(policy('p', { mutations: [setLabel('a', '"1"')], matchConstraints: { resourceRules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] } }), binding('b', 'p')), req({ operation: 'DELETE', object: null, oldObject: pod() }));
    expect(r).toMatchObject({ allowed: true, patch: [], outcomes: [] });
  });

  it('never the admission-policy resources themselves', async () => {
    for (const resource of ['mutatingadmissionpolicies', 'mutatingadmissionpolicybindings', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings']) {
      const r = await evaluate(s(), req({ resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource }, kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'X' }, namespace: '', object: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'X', metadata: { name: 'p' } } }));
      expect(r).toMatchObject({ allowed: true, patch: [], outcomes: [] });
    }
  });

  it('an unbound policy does nothing; a binding of a missing policy is ignored', async () => {
    const r = await evaluate(set(policy('p', { mutations: [setLabel('a', '"1"')] }), binding('b', 'other')), req());
    expect(r).toMatchObject({ allowed: true, patch: [] });
  });
});

describe('§14 the reply patch', () => {
  it('is a strict RFC 6902 diff from the received object, integers stay integers', async () => {
    const s = set(
      policy('p', {
        mutations: [
          { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/spec/terminationGracePeriodSeconds", value: 3}, JSONPatch{op: "add", path: "/spec/containers/-1/ports", value: [{"containerPort": 80}]}]' } },
        ],
      }),
      binding('b', 'p'),
    );
    const r = await evaluate(s, req());
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    const text = JSON.stringify(r.patch);
    expect(text).toContain('"value":3');
    expect(text).not.toContain('3.0');
    const applied = applyPatch(req().object!, r.patch, 'rfc6902');
    expect(applied).toEqual({ ok: true, doc: r.object });
    expect((r.object as Obj).spec.containers[0].ports).toEqual([{ containerPort: 80 }]);
  });

  it('is empty when nothing changed', async () => {
    const s = set(policy('p', { mutations: [setLabel('a', '"1"')] }), binding('b', 'p'));
    const r = await evaluate(s, req({ object: pod({ a: '1' }) }));
    expect(r).toMatchObject({ allowed: true, patch: [] });
  });

  it('never changes the request', async () => {
    const s = set(policy('p', { mutations: [setLabel('a', '"1"')] }), binding('b', 'p'));
    const r0 = req();
    const copy = structuredClone(r0);
    await evaluate(s, r0);
    expect(r0).toEqual(copy);
  });
});

describe('§2 matching', () => {
  it('binding matchResources intersect with the policy constraints', async () => {
    const s = set(
      policy('p', { mutations: [setLabel('a', '"1"')] }),
      binding('b', 'p', { matchResources: { objectSelector: { matchLabels: { env: 'prod' } } } }),
    );
    expect(labelsOf(await evaluate(s, req({ object: pod({ env: 'prod' }) })))).toEqual({ env: 'prod', a: '1' });
    expect(labelsOf(await evaluate(s, req({ object: pod({ env: 'dev' }) })))).toEqual({ env: 'dev' });
  });

  it('excludeResourceRules and resourceNames', async () => {
    const s = set(
      policy('p', {
        mutations: [setLabel('a', '"1"')],
        matchConstraints: {
          resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], resourceNames: ['p', 'q'] }],
          excludeResourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], resourceNames: ['q'] }],
        },
      }),
      binding('b', 'p'),
    );
    expect(labelsOf(await evaluate(s, req()))).toEqual({ a: '1' });
    expect(await evaluate(s, req({ name: 'q' }))).toMatchObject({ allowed: true, patch: [] });
    expect(await evaluate(s, req({ name: 'r' }))).toMatchObject({ allowed: true, patch: [] });
  });

  it('subresources need an explicit rule', async () => {
    const s = (resources: string[]) =>
      set(policy('p', { mutations: [setLabel('a', '"1"')], matchConstraints: { resourceRules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources }] } }), binding('b', 'p'));
    const status = req({ operation: 'UPDATE', subResource: 'status', oldObject: pod() });
    expect(await evaluate(s(['pods']), status)).toMatchObject({ patch: [] });
    expect(labelsOf(await evaluate(s(['pods/status']), status))).toEqual({ a: '1' });
    expect(labelsOf(await evaluate(s(['pods/*']), status))).toEqual({ a: '1' });
  });

  it('namespaceSelector reads the Namespace documents of the set', async () => {
    const ns = (name: string, labels: Obj) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
    const s = set(
      policy('p', { mutations: [setLabel('a', '"1"')], matchConstraints: { namespaceSelector: { matchLabels: { team: 'x' } }, resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } }),
      binding('b', 'p'),
      ns('default', { team: 'x' }),
      ns('other', { team: 'y' }),
    );
    expect(labelsOf(await evaluate(s, req()))).toEqual({ a: '1' });
    expect(await evaluate(s, req({ namespace: 'other', object: pod({}, 'other') }))).toMatchObject({ allowed: true, patch: [] });
  });

  it('an unknown namespace: empty selector matches, non-empty selector is an error under failurePolicy', async () => {
    const mk = (selector: Obj, failurePolicy: string) =>
      set(policy('p', { failurePolicy, mutations: [setLabel('a', '"1"')], matchConstraints: { namespaceSelector: selector, resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] } }), binding('b', 'p'));
    const unknown = req({ namespace: 'ghost', object: pod({}, 'ghost') });
    expect(labelsOf(await evaluate(mk({}, 'Fail'), unknown))).toEqual({ a: '1' });
    const status = denied(await evaluate(mk({ matchLabels: { team: 'x' } }, 'Fail'), unknown));
    expect(status).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(status.message.startsWith('policy "p" denied request: failed to configure policy: ')).toBe(true);
    expect(status.message).toContain('namespaces "ghost" not found');
    expect(await evaluate(mk({ matchLabels: { team: 'x' } }, 'Ignore'), unknown)).toMatchObject({ allowed: true, patch: [] });
  });

  it('namespaceObject is the Namespace document, null when unknown or cluster-scoped', async () => {
    const s = set(
      policy('p', { mutations: [setLabel('ns', 'namespaceObject == null ? "none" : namespaceObject.metadata.labels["team"]')] }),
      binding('b', 'p'),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { team: 'x' } } },
    );
    expect(labelsOf(await evaluate(s, req()))).toEqual({ ns: 'x' });
    expect(labelsOf(await evaluate(s, req({ namespace: 'ghost', object: pod({}, 'ghost') })))).toEqual({ ns: 'none' });
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
    expect(labelsOf(await evaluate(s, req({ namespace: '', kind: { group: '', version: 'v1', kind: 'Node' }, resource: { group: '', version: 'v1', resource: 'nodes' }, name: 'n1', object: node })))).toEqual({ ns: 'none' });
  });

  it('matchPolicy Equivalent in the webhook: rules are matched against request.kind/resource as received', async () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1 } };
    const s = (version: string) =>
      set(
        policy('p', {
          mutations: [setLabel('kind', 'request.kind.version + "/" + request.requestKind.version')],
          matchConstraints: { matchPolicy: 'Equivalent', resourceRules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: [version], resources: ['deployments'] }] },
        }),
        binding('b', 'p'),
      );
    const r = (kindVersion: string, requestVersion: string) =>
      req({
        name: 'd',
        kind: { group: 'apps', version: kindVersion, kind: 'Deployment' },
        resource: { group: 'apps', version: kindVersion, resource: 'deployments' },
        requestKind: { group: 'apps', version: requestVersion, kind: 'Deployment' },
        requestResource: { group: 'apps', version: requestVersion, resource: 'deployments' },
        object: { ...deployment, apiVersion: `apps/${kindVersion}` },
      });
    // The API server converted the object to the version the webhook rule names: it matches, CEL sees both.
    expect(labelsOf(await evaluate(s('v1beta1'), r('v1beta1', 'v1')))).toEqual({ kind: 'v1beta1/v1' });
    // A version the policy does not name is not converted by the webhook: no match.
    expect(await evaluate(s('v1beta1'), r('v1', 'v1'))).toMatchObject({ allowed: true, patch: [] });
  });
});

describe('§4 params', () => {
  const paramPolicy = (extra: Obj = {}) =>
    policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{annotations: params.data}}' } }], ...extra });

  it('by name, in the request namespace or paramRef.namespace; built-in params have no apiVersion/kind', async () => {
    const s = set(
      policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [setLabel('t', 'has(params.kind) ? "typed-meta" : params.data.v')] }),
      binding('b', 'p', { paramRef: { name: 'cm', parameterNotFoundAction: 'Deny' } }),
      configMap('cm', 'default', { v: 'here' }),
      configMap('cm', 'other', { v: 'there' }),
    );
    expect(labelsOf(await evaluate(s, req()))).toEqual({ t: 'here' });
    expect(labelsOf(await evaluate(s, req({ namespace: 'other', object: pod({}, 'other') })))).toEqual({ t: 'there' });
  });

  it('by selector: one run per param, in (namespace, name) order, each seeing the previous result', async () => {
    const s = set(
      policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [setLabel('order', 'object.metadata.?labels.order.orValue("") + params.data.n')] }),
      binding('b', 'p', { paramRef: { selector: { matchLabels: { use: 'yes' } }, parameterNotFoundAction: 'Allow' } }),
      configMap('c', 'default', { n: 'c' }, { use: 'yes' }),
      configMap('a', 'default', { n: 'a' }, { use: 'yes' }),
      configMap('b', 'default', { n: 'b' }, { use: 'no' }),
      configMap('d', 'other', { n: 'd' }, { use: 'yes' }),
    );
    expect(labelsOf(await evaluate(s, req()))).toEqual({ order: 'ac' });
  });

  it('not found: Allow does nothing, Deny is a binding configuration error', async () => {
    const allow = set(paramPolicy(), binding('b', 'p', { paramRef: { name: 'missing', parameterNotFoundAction: 'Allow' } }));
    expect(await evaluate(allow, req())).toMatchObject({ allowed: true, patch: [] });
    const deny = set(paramPolicy(), binding('b', 'p', { paramRef: { name: 'missing', parameterNotFoundAction: 'Deny' } }));
    expect(denied(await evaluate(deny, req()))).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: "policy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    });
  });

  it('no paramRef: params is null', async () => {
    const s = set(policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [setLabel('n', 'params == null ? "null" : "set"')] }), binding('b', 'p'));
    expect(labelsOf(await evaluate(s, req()))).toEqual({ n: 'null' });
  });

  it('scope rules: a namespaced paramRef without namespace on a cluster-scoped request; a namespace for a cluster-scoped kind', async () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
    const clusterReq = req({ namespace: '', name: 'n1', kind: { group: '', version: 'v1', kind: 'Node' }, resource: { group: '', version: 'v1', resource: 'nodes' }, object: node });
    const s1 = set(paramPolicy(), binding('b', 'p', { paramRef: { name: 'cm', parameterNotFoundAction: 'Allow' } }));
    expect(denied(await evaluate(s1, clusterReq)).message).toContain('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    const s2 = set(
      policy('p', { paramKind: { apiVersion: 'v1', kind: 'Namespace' }, mutations: [setLabel('a', '"1"')] }),
      binding('b', 'p', { paramRef: { name: 'default', namespace: 'x', parameterNotFoundAction: 'Allow' } }),
    );
    expect(denied(await evaluate(s2, req())).message).toContain('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  });

  it('a paramKind no source knows is a policy configuration error; CRD-declared kinds are known', async () => {
    const unknown = set(policy('p', { paramKind: { apiVersion: 'example.com/v1', kind: 'Setting' }, mutations: [setLabel('a', '"1"')] }), binding('b', 'p', { paramRef: { name: 's', parameterNotFoundAction: 'Allow' } }));
    expect(denied(await evaluate(unknown, req()))).toMatchObject({
      reason: 'Forbidden',
      message: `policy "p" denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Setting'`,
    });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'settings.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { kind: 'Setting', plural: 'settings', singular: 'setting', listKind: 'SettingList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { value: { type: 'string' } } } } }],
      },
    };
    const known = set(
      crd,
      policy('p', { paramKind: { apiVersion: 'example.com/v1', kind: 'Setting' }, mutations: [setLabel('a', 'params.value + "/" + params.kind')] }),
      binding('b', 'p', { paramRef: { name: 's', parameterNotFoundAction: 'Deny' } }),
      { apiVersion: 'example.com/v1', kind: 'Setting', metadata: { name: 's' }, value: 'v' },
    );
    expect(labelsOf(await evaluate(known, req()))).toEqual({ a: 'v/Setting' });
  });
});

describe('§5 matchConditions', () => {
  it('any false skips, whatever the errors; errors follow the failurePolicy', async () => {
    const mk = (failurePolicy: string, conditions: Obj[]) => set(policy('p', { failurePolicy, matchConditions: conditions, mutations: [setLabel('a', '"1"')] }), binding('b', 'p'));
    const boom = { name: 'boom', expression: 'object.metadata.labels["missing"] == "x"' };
    expect(await evaluate(mk('Fail', [boom, { name: 'no', expression: 'false' }]), req())).toMatchObject({ allowed: true, patch: [] });
    const status = denied(await evaluate(mk('Fail', [boom, { name: 'yes', expression: 'true' }]), req({ object: pod({ other: 'v' }) })));
    expect(status).toMatchObject({ code: 403, reason: 'Invalid' });
    expect(status.message).toContain("policy 'p' with binding 'b' denied request: ");
    expect(await evaluate(mk('Ignore', [boom]), req({ object: pod({ other: 'v' }) }))).toMatchObject({ allowed: true, patch: [] });
    expect(labelsOf(await evaluate(mk('Fail', [{ name: 'yes', expression: 'request.userInfo.username == "alice"' }]), req()))).toEqual({ a: '1' });
  });

  it('see the object as mutated by earlier invocations', async () => {
    const s = set(
      policy('a-first', { mutations: [setLabel('stage', '"one"')] }),
      policy('b-second', { matchConditions: [{ name: 'after', expression: 'object.metadata.?labels.stage.orValue("") == "one"' }], mutations: [setLabel('seen', '"yes"')] }),
      binding('b1', 'a-first'),
      binding('b2', 'b-second'),
    );
    expect(labelsOf(await evaluate(s, req()))).toEqual({ stage: 'one', seen: 'yes' });
  });
});

describe('§6 order, §10 failures and the 403', () => {
  it('runs policies by name, bindings by name; later ones see earlier results', async () => {
    const s = set(
      policy('z', { mutations: [setLabel('trail', 'object.metadata.?labels.trail.orValue("") + "z"')] }),
      policy('a', { mutations: [setLabel('trail', 'object.metadata.?labels.trail.orValue("") + "a"')] }),
      binding('b2', 'a'),
      binding('b1', 'a'),
      binding('b0', 'z'),
    );
    expect(labelsOf(await evaluate(s, req()))).toEqual({ trail: 'aaz' });
  });

  it('one 403 for all remaining errors, first error first; Ignore errors dropped; mutations of the failing invocation continue', async () => {
    const s = set(
      policy('a', { mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "remove", path: "/nope"}]' } }, setLabel('still', '"ran"')] }),
      policy('b', { failurePolicy: 'Ignore', mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "remove", path: "/nope"}]' } }] }),
      policy('c', { mutations: [setLabel('x', 'object.spec.nope')] }),
      binding('ba', 'a'),
      binding('bb', 'b'),
      binding('bc', 'c'),
    );
    const r = await evaluate(s, req());
    const status = denied(r);
    expect(status.code).toBe(403);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toMatch(/^policy 'a' with binding 'ba' denied request: JSON Patch: /);
    expect(status.details!.causes!.map((c) => c.message.slice(0, 40))).toEqual([
      "policy 'a' with binding 'ba' denied requ",
      "policy 'c' with binding 'bc' denied requ",
    ]);
    expect(status.details).toMatchObject({ group: '', kind: 'pods', name: 'p' });
    expect(r.outcomes.filter((o) => o.ignored).map((o) => o.policy)).toEqual(['b']);
    expect(r.outcomes.find((o) => o.policy === 'a')!.result).toBe('error');
  });

  it('a failed JSON patch test discards that mutation only, without error', async () => {
    const s = set(
      policy('p', {
        mutations: [
          { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "test", path: "/metadata/name", value: "other"}, JSONPatch{op: "add", path: "/metadata/labels", value: {"x": "1"}}]' } },
          setLabel('y', '"2"'),
        ],
      }),
      binding('b', 'p'),
    );
    expect(labelsOf(await evaluate(s, req()))).toEqual({ y: '2' });
  });

  it('a compile error of a stored policy surfaces at evaluation under the failurePolicy', async () => {
    // The API server's semantics for a policy it already stores; the server and CLI refuse such a policy.
    const stored = { compileErrors: 'keep' } as const;
    const broken = { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": nope}}}' } };
    const fail = buildPolicySet([parseDocuments('t.json', JSON.stringify([policy('p', { mutations: [broken, setLabel('b', '"1"')] }), binding('b', 'p')]))], stored);
    const status = denied(await evaluate(fail, req()));
    expect(status.reason).toBe('Invalid');
    expect(status.message).toContain('compilation failed');
    const ignore = buildPolicySet([parseDocuments('t.json', JSON.stringify([policy('p', { failurePolicy: 'Ignore', mutations: [broken, setLabel('b', '"1"')] }), binding('b', 'p')]))], stored);
    expect(labelsOf(await evaluate(ignore, req()))).toEqual({ b: '1' });
    // By default the policy is refused: left out, the request passes untouched.
    const refused = buildPolicySet([parseDocuments('t.json', JSON.stringify([policy('p', { mutations: [broken, setLabel('b', '"1"')] }), binding('b', 'p')]))]);
    expect(refused.mutatingPolicies).toEqual([]);
    expect(labelsOf(await evaluate(refused, req()))).toEqual({});
  });
});

describe('§11 reinvocation, emulated inside the call', () => {
  const counting = (name: string, reinvocationPolicy: string) =>
    policy(name, { reinvocationPolicy, mutations: [setLabel(name, 'string(int(object.metadata.?labels["' + name + '"].orValue("0")) + 1)')] });

  it('IfNeeded invocations that ran run once more when the object changed; Never ones do not', async () => {
    const s = set(counting('a', 'IfNeeded'), counting('b', 'Never'), binding('ba', 'a'), binding('bb', 'b'));
    const r = await evaluate(s, req());
    expect(labelsOf(r)).toEqual({ a: '2', b: '1' });
    expect(r.outcomes.map((o) => [o.policy, o.pass])).toEqual([
      ['a', 1],
      ['b', 1],
      ['a', 2],
    ]);
    expect(labelsOf(await evaluate(s, req(), { reinvocation: false }))).toEqual({ a: '1', b: '1' });
  });

  it('an invocation its conditions skipped in the first pass never runs in the second', async () => {
    const s = set(
      policy('a', { reinvocationPolicy: 'IfNeeded', matchConditions: [{ name: 'ready', expression: 'object.metadata.?labels.ready.orValue("") == "yes"' }], mutations: [setLabel('a', '"ran"')] }),
      policy('b', { mutations: [setLabel('ready', '"yes"')] }),
      binding('ba', 'a'),
      binding('bb', 'b'),
    );
    expect(labelsOf(await evaluate(s, req()))).toEqual({ ready: 'yes' });
  });
});

describe('§8.3 strict decoding of JSON-patched built-in objects', () => {
  it('an unknown field aborts with 500 whatever the failurePolicy', async () => {
    const s = set(
      policy('p', { failurePolicy: 'Ignore', mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/spec/replicas", value: 3}]' } }] }),
      binding('b', 'p'),
    );
    expect(denied(await evaluate(s, req()))).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: strict decoding error: unknown field "spec.replicas"',
    });
  });
});

describe('odd objects are answered, never thrown', () => {
  it('arrays, scalars, objects without metadata, __proto__ keys', async () => {
    const s = set(
      policy('a', { failurePolicy: 'Fail', mutations: [setLabel('a', '"1"')] }),
      policy('j', { failurePolicy: 'Fail', mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/x", value: 1}]' } }] }),
      binding('ba', 'a'),
      binding('bj', 'j'),
    );
    const odd = [[1, 2], 'text', 7, { kind: 'Pod' }, JSON.parse('{"apiVersion":"v1","kind":"Pod","metadata":{"__proto__":{"polluted":1},"name":"p"}}')];
    for (const object of odd) {
      const r = await evaluate(s, req({ object }));
      expect(typeof r.allowed).toBe('boolean');
      if (!r.allowed) expect(r.status.message).not.toContain('amender engine:');
    }
    expect(({} as Obj).polluted).toBeUndefined();
  });
});

describe('pipeline: MutatingAdmissionPolicies first, then Kyverno policies', () => {
  const clusterPolicy = (name: string, mutate: Obj, failurePolicy = 'Fail'): Obj => ({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name },
    spec: {
      failurePolicy,
      rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate }],
    },
  });

  it('Kyverno sees the object the MAP invocations produced; one patch for both', async () => {
    const s = set(
      policy('p', { mutations: [setLabel('from-map', '"yes"')] }),
      binding('b', 'p'),
      clusterPolicy('k', { patchStrategicMerge: { metadata: { labels: { 'from-kyverno': '{{ request.object.metadata.labels."from-map" }}' } } } }),
    );
    expect(s.counts.kyvernoPolicies).toBe(1);
    const r = await evaluate(s, req());
    expect(labelsOf(r)).toEqual({ 'from-map': 'yes', 'from-kyverno': 'yes' });
    expect(r.outcomes.map((o) => [o.engine, o.policy, o.result])).toEqual([
      ['MutatingAdmissionPolicy', 'p', 'mutated'],
      ['Kyverno', 'ClusterPolicy/k', 'mutated'],
    ]);
    expect(r.auditAnnotations['kyverno-mutate']).toContain('ClusterPolicy/k');
    const applied = applyPatch(req().object!, r.allowed ? r.patch : [], 'rfc6902');
    expect(applied).toEqual({ ok: true, doc: r.allowed ? r.object : undefined });
  });

  it('a failing Kyverno policy with failurePolicy Fail denies the request; Ignore drops its changes', async () => {
    const broken = { patchesJson6902: '- op: move\n  from: /spec/nothing\n  path: /spec/here' };
    const fail = await evaluate(set(clusterPolicy('k', broken, 'Fail')), req());
    expect(denied(fail)).toMatchObject({ code: 403 });
    const ignore = await evaluate(set(policy('p', { mutations: [setLabel('a', '"1"')] }), binding('b', 'p'), clusterPolicy('k', broken, 'Ignore')), req());
    expect(labelsOf(ignore)).toEqual({ a: '1' });
    expect(ignore.outcomes.find((o) => o.engine === 'Kyverno')).toMatchObject({ result: 'error', ignored: true });
  });

  it('a MAP denial stops the pipeline before Kyverno', async () => {
    const s = set(
      policy('p', { mutations: [setLabel('x', 'object.spec.nope')] }),
      binding('b', 'p'),
      clusterPolicy('k', { patchStrategicMerge: { metadata: { labels: { k: 'v' } } } }),
    );
    const r = await evaluate(s, req());
    denied(r);
    expect(r.outcomes.some((o) => o.engine === 'Kyverno')).toBe(false);
  });
});

describe('§5/§13 matchConditions share one cost budget per invocation', () => {
  // Each condition costs a little under PerCallLimit (1,000,000); three exceed the shared 2,500,000.
  const heavy = 'lists.range(400).all(i, lists.range(400).all(j, i >= 0))';
  const mk = (failurePolicy: string, n: number) =>
    set(
      policy('p', {
        failurePolicy,
        matchConditions: Array.from({ length: n }, (_, i) => ({ name: `heavy-${i}`, expression: heavy })),
        mutations: [setLabel('a', '"1"')],
      }),
      binding('b', 'p'),
    );

  it('two heavy conditions fit, three run out of budget', async () => {
    expect(labelsOf(await evaluate(mk('Fail', 2), req()))).toEqual({ a: '1' });
    const status = denied(await evaluate(mk('Fail', 3), req()));
    expect(status).toMatchObject({ code: 403, reason: 'Invalid' });
    expect(status.message).toContain('running out of cost budget');
    expect(await evaluate(mk('Ignore', 3), req())).toMatchObject({ allowed: true, patch: [] });
  });

  it('a mutation has its own 10,000,000 budget: three heavy variables fit, where three heavy conditions did not', async () => {
    const variables = ['x', 'y', 'z'].map((name) => ({ name, expression: heavy }));
    const s = set(policy('p', { variables, mutations: [setLabel('a', 'string(variables.x) + string(variables.y) + string(variables.z)')] }), binding('b', 'p'));
    expect(labelsOf(await evaluate(s, req()))).toEqual({ a: 'truetruetrue' });
  });

  it('one expression over PerCallLimit fails on its own', async () => {
    const s = set(policy('p', { mutations: [setLabel('a', `string(${heavy} && ${heavy})`)] }), binding('b', 'p'));
    expect(denied(await evaluate(s, req())).message).toContain('operation cancelled: actual cost limit exceeded');
  });
});
