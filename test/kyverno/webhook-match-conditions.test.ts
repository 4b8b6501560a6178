/**
 * A ClusterPolicy's `spec.webhookConfiguration.matchConditions` (chainsaw webhook-configurations/
 * match-conditions-*): Kyverno gives them to the API server in a webhook of the policy's own, so the policy
 * runs only for requests they all hold for; an error denies under failurePolicy Fail and skips under
 * Ignore (apiserver webhook/generic/webhook.go, matchconditions/matcher.go). Through `amender review`, the
 * webhook's code path, and the policy validation Kyverno applies to them (ValidateCustomWebhookMatchConditions).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';
import { fakeIO } from '../cli/fake-io.js';

function policy(conditions: JsonObject[], failurePolicy = 'Fail'): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'team-label', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      webhookConfiguration: { failurePolicy, matchConditions: conditions },
      rules: [{ name: 'label', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels: { team: 'a' } } } } }],
    },
  };
}

function review(namespace: string, labels: Record<string, string> = {}, groups = ['system:authenticated']): JsonObject {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u1',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      name: 'web',
      namespace,
      operation: 'CREATE',
      userInfo: { username: 'alice', groups },
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

async function reply(doc: JsonObject, r: JsonObject): Promise<{ allowed: boolean; patch?: unknown; status?: { message: string } }> {
  const io = fakeIO({ 'p.json': JSON.stringify(doc), 'r.json': JSON.stringify(r) });
  expect(await runCli(['review', '--policies', 'p.json', '--input', 'r.json', '--quiet'], io)).toBe(0);
  const response = JSON.parse(io.stdout).response as { allowed: boolean; patch?: string; status?: { message: string } };
  return { ...response, patch: response.patch ? JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) : undefined };
}

const SELECT_NAMESPACE = { name: 'select-namespace', expression: "object.metadata.namespace == 'team-a'" };

describe('webhookConfiguration.matchConditions of a ClusterPolicy', () => {
  it('run the policy when they all hold, and skip it when one is false', async () => {
    const doc = policy([SELECT_NAMESPACE, { name: 'not-masters', expression: "!('system:masters' in request.userInfo.groups)" }]);
    expect((await reply(doc, review('team-a'))).patch).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'a' }]);
    expect(await reply(doc, review('team-b'))).toMatchObject({ allowed: true, patch: undefined });
    expect(await reply(doc, review('team-a', {}, ['system:masters']))).toMatchObject({ allowed: true, patch: undefined });
  });

  it('a false condition skips the policy even beside an error; an error alone denies under Fail and skips under Ignore', async () => {
    const failing = { name: 'needs-label', expression: "object.metadata.labels['tier'] == 'web'" };
    expect(await reply(policy([failing, SELECT_NAMESPACE]), review('team-b'))).toMatchObject({ allowed: true, patch: undefined });
    const denied = await reply(policy([failing, SELECT_NAMESPACE]), review('team-a'));
    expect(denied.allowed).toBe(false);
    expect(denied.status?.message).toBe("policy ClusterPolicy/team-label: webhookConfiguration.matchConditions: expression 'object.metadata.labels['tier'] == 'web'' resulted in error: no such key: tier");
    expect(await reply(policy([failing, SELECT_NAMESPACE], 'Ignore'), review('team-a'))).toMatchObject({ allowed: true, patch: undefined });
    expect((await reply(policy([failing, SELECT_NAMESPACE]), review('team-a', { tier: 'web' }))).patch).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'a' }]);
  });

  it('are refused when Kyverno refuses them: not compiling, not bool, reading authorizer or params, unnamed or duplicate', () => {
    const problems = (conditions: JsonObject[]) => {
      const result = compileKyvernoPolicy(policy(conditions));
      return result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);
    };
    expect(problems([SELECT_NAMESPACE])).toEqual([]);
    expect(problems([{ name: 'a', expression: 'object.metadata.name ==' }])[0]).toMatch(/^spec\.webhookConfiguration\.matchConditions\[0\]\.expression: match conditions compilation errors: compilation failed/);
    expect(problems([{ name: 'a', expression: "object.metadata.name + 'x'" }])[0]).toMatch(/must evaluate to bool/);
    expect(problems([{ name: 'a', expression: "authorizer.group('').resource('pods').check('get').allowed()" }])[0]).toMatch(/undeclared reference to 'authorizer'/);
    expect(problems([{ name: 'a', expression: 'params != null' }])[0]).toMatch(/undeclared reference to 'params'/);
    expect(problems([{ expression: 'true' }, { name: 'b', expression: 'true' }, { name: 'b', expression: 'true' }])).toEqual([
      'spec.webhookConfiguration.matchConditions[0].name: is required',
      'spec.webhookConfiguration.matchConditions[2].name: duplicate condition name "b"',
    ]);
  });
});
