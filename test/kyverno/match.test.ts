/** match / exclude (spec §9) through compiled policies. */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import type { JsonObject } from '../../src/json/index.js';
import { runKyvernoPolicies } from '../../src/kyverno/index.js';
import type { Labels } from '../../src/kyverno/match/selector.js';
import { compiled, pod, podRequest } from './helpers/requests.js';

function policyWith(match: JsonObject, exclude?: JsonObject) {
  return compiled({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'm' },
    spec: {
      // Out of background mode, where Kyverno forbids matching on the requester (subjects, roles).
      background: false,
      rules: [
        {
          name: 'r',
          match,
          ...(exclude ? { exclude } : {}),
          mutate: { patchesJson6902: '- op: add\n  path: /metadata/annotations\n  value: {hit: "yes"}' },
        },
      ],
    },
  });
}

async function matches(match: JsonObject, opts: { exclude?: JsonObject; request?: Partial<AdmissionRequest>; object?: JsonObject; namespaceLabels?: Labels } = {}) {
  const object = opts.object ?? pod('web-1', ['a']);
  const result = await runKyvernoPolicies([policyWith(match, opts.exclude)], {
    request: { ...podRequest(object), ...opts.request },
    namespaceLabels: opts.namespaceLabels,
  });
  return result.policies.length > 0;
}

const resources = (r: JsonObject) => ({ any: [{ resources: r }] });

describe('kinds', () => {
  const deployment: JsonObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' } };
  const deploymentRequest: Partial<AdmissionRequest> = { kind: { group: 'apps', version: 'v1', kind: 'Deployment' } };
  it.each([
    [['Pod'], true],
    [['v1/Pod'], true],
    [['v2/Pod'], false],
    [['*'], true],
    [['P*'], true],
    [['Deployment', 'Pod'], true],
    [['Pod/exec'], false],
    [['Pod/*'], true],
  ] as const)('%j', async (kinds, expected) => {
    expect(await matches(resources({ kinds: [...kinds] }))).toBe(expected);
  });
  it('group/version/kind', async () => {
    expect(await matches(resources({ kinds: ['apps/v1/Deployment'] }), { object: deployment, request: deploymentRequest })).toBe(true);
    expect(await matches(resources({ kinds: ['batch/v1/Deployment'] }), { object: deployment, request: deploymentRequest })).toBe(false);
    expect(await matches(resources({ kinds: ['apps/*/Deployment'] }), { object: deployment, request: deploymentRequest })).toBe(true);
  });
  it('subresources', async () => {
    expect(await matches(resources({ kinds: ['Pod/exec'] }), { request: { subResource: 'exec' } })).toBe(true);
    expect(await matches(resources({ kinds: ['Pod/status'] }), { request: { subResource: 'exec' } })).toBe(false);
    expect(await matches(resources({ kinds: ['Pod/status'] }))).toBe(false);
  });
  it('a kind without a subresource selects the resource, not its subresources', async () => {
    for (const kinds of [['Pod'], ['v1/Pod'], ['*']]) {
      expect(await matches(resources({ kinds }), { request: { subResource: 'status' } }), kinds[0]).toBe(false);
    }
    for (const kinds of [['Pod/*'], ['*/status'], ['*/*'], ['v1/Pod.status']]) {
      expect(await matches(resources({ kinds }), { request: { subResource: 'status' } }), kinds[0]).toBe(true);
    }
    // `*` also selects no subresource at all.
    expect(await matches(resources({ kinds: ['Pod/*'] }))).toBe(true);
    // Pod rules see ephemeral-container updates.
    expect(await matches(resources({ kinds: ['Pod'] }), { request: { subResource: 'ephemeralcontainers' } })).toBe(true);
  });
});

describe('resource criteria', () => {
  it('names and namespaces take wildcards', async () => {
    expect(await matches(resources({ kinds: ['Pod'], names: ['web-*'] }))).toBe(true);
    expect(await matches(resources({ kinds: ['Pod'], name: 'db-?' }))).toBe(false);
    expect(await matches(resources({ kinds: ['Pod'], namespaces: ['def*'] }))).toBe(true);
    expect(await matches(resources({ kinds: ['Pod'], namespaces: ['prod'] }))).toBe(false);
  });
  it('a Namespace is in its own name, not its generateName (checkNameSpace reads GetName)', async () => {
    const namespace = (metadata: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata });
    const request: Partial<AdmissionRequest> = { kind: { group: '', version: 'v1', kind: 'Namespace' }, resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: '' };
    const e2e = resources({ kinds: ['Namespace'], namespaces: ['e2e-*'] });
    expect(await matches(e2e, { object: namespace({ name: 'e2e-abc' }), request })).toBe(true);
    // The API server generates the name after mutating admission: the webhook sees only generateName.
    expect(await matches(e2e, { object: namespace({ generateName: 'e2e-' }), request })).toBe(false);
    expect(await matches(resources({ kinds: ['Namespace'], namespaces: ['*'] }), { object: namespace({ generateName: 'e2e-' }), request })).toBe(true);
    // `names` still falls back to generateName (TestMatchesResourceDescription_GenerateName).
    expect(await matches(resources({ kinds: ['Namespace'], names: ['e2e-*'] }), { object: namespace({ generateName: 'e2e-' }), request })).toBe(true);
  });
  it('a selector with an invalid label key or value matches nothing (CheckSelector: LabelSelectorAsSelector fails)', async () => {
    const namespaceLabels = { env: 'prod' };
    const nsSelector = (selector: JsonObject) => resources({ kinds: ['Pod'], namespaceSelector: selector });
    const prodOr = (value: string) => ({ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', value] }] });
    expect(await matches(nsSelector(prodOr('staging')), { namespaceLabels })).toBe(true);
    expect(await matches(nsSelector(prodOr('Prod Env')), { namespaceLabels })).toBe(false);
    expect(await matches(nsSelector(prodOr('x'.repeat(64))), { namespaceLabels })).toBe(false);
    expect(await matches(nsSelector({ matchLabels: { env: 'prod', 'bad key': 'x' } }), { namespaceLabels })).toBe(false);
    // Nor does it exclude; and it is decided without the namespace's labels.
    expect(await matches(resources({ kinds: ['Pod'] }), { exclude: { any: [{ resources: { namespaceSelector: prodOr('Prod Env') } }] }, namespaceLabels })).toBe(true);
    expect(await matches(nsSelector(prodOr('Prod Env')))).toBe(false);
    // A wildcard entry is not checked: its '0'-replaced text is never what a label holds.
    expect(await matches(nsSelector({ matchLabels: { env: 'pr*' } }), { namespaceLabels })).toBe(true);
  });
  it('an exclude filter whose user lists are written empty excludes everything (UserInfo is not the zero value)', async () => {
    const pods = resources({ kinds: ['Pod'] });
    expect(await matches(pods, { exclude: { any: [{ subjects: [] }] } })).toBe(false);
    expect(await matches(pods, { exclude: { any: [{ clusterRoles: [] }] } })).toBe(false);
    expect(await matches(pods, { exclude: { any: [{ subjects: null }] } })).toBe(true);
    expect(await matches(pods, { exclude: { any: [{ resources: { namespaces: [] } }] } })).toBe(true);
    // Beside a criterion it adds none.
    expect(await matches(pods, { exclude: { any: [{ resources: { namespaces: ['kube-*'] }, subjects: [] }] } })).toBe(true);
  });
  it('annotations and selectors (with wildcards)', async () => {
    const object = pod('web-1', ['a']);
    (object.metadata as JsonObject).annotations = { 'team.io/owner': 'blue' };
    (object.metadata as JsonObject).labels = { app: 'web', tier: 'front' };
    expect(await matches(resources({ kinds: ['Pod'], annotations: { 'team.io/*': 'bl*' } }), { object })).toBe(true);
    expect(await matches(resources({ kinds: ['Pod'], annotations: { 'team.io/owner': 'red' } }), { object })).toBe(false);
    expect(await matches(resources({ kinds: ['Pod'], selector: { matchLabels: { app: 'web' } } }), { object })).toBe(true);
    expect(await matches(resources({ kinds: ['Pod'], selector: { matchLabels: { 'ti*': 'fr*' } } }), { object })).toBe(true);
    expect(
      await matches(resources({ kinds: ['Pod'], selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] } }), { object }),
    ).toBe(false);
  });
  it('operations', async () => {
    expect(await matches(resources({ kinds: ['Pod'], operations: ['UPDATE'] }))).toBe(false);
    expect(await matches(resources({ kinds: ['Pod'], operations: ['CREATE'] }))).toBe(true);
  });
});

describe('users', () => {
  it('subjects, roles and cluster roles', async () => {
    expect(await matches({ any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'User', name: 'ali*' }] }] })).toBe(true);
    expect(await matches({ any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'Group', name: 'system:masters' }] }] })).toBe(false);
    expect(
      await matches(
        { any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: 'ci' }] }] },
        { request: { userInfo: { username: 'system:serviceaccount:ci:deployer' } } },
      ),
    ).toBe(true);
    expect(await matches({ any: [{ resources: { kinds: ['Pod'] }, clusterRoles: ['admin'] }] })).toBe(false);
  });
  it('without user information the user criteria of match are not checked', async () => {
    expect(await matches({ any: [{ resources: { kinds: ['Pod'] }, subjects: [{ kind: 'User', name: 'bob' }] }] }, { request: { userInfo: {} } })).toBe(true);
  });
});

describe('any, all and exclude', () => {
  it('all needs every filter, any one of them', async () => {
    expect(await matches({ all: [{ resources: { kinds: ['Pod'] } }, { resources: { names: ['web-*'] } }] })).toBe(true);
    expect(await matches({ all: [{ resources: { kinds: ['Pod'] } }, { resources: { names: ['db-*'] } }] })).toBe(false);
    expect(await matches({ any: [{ resources: { kinds: ['Service'] } }, { resources: { names: ['web-*'] } }] })).toBe(true);
  });
  it('exclude.any excludes on one filter, exclude.all only when all match', async () => {
    const match = resources({ kinds: ['Pod'] });
    expect(await matches(match, { exclude: { any: [{ resources: { names: ['web-*'] } }, { resources: { names: ['x'] } }] } })).toBe(false);
    expect(await matches(match, { exclude: { all: [{ resources: { names: ['web-*'] } }, { resources: { names: ['x'] } }] } })).toBe(true);
    expect(await matches(match, { exclude: { resources: { namespaces: ['default'] } } })).toBe(false);
  });
});
