/**
 * Kyverno's own match / exclude cases (pkg/engine/utils/utils_test.go, match_test.go; data in
 * upstream/match-resource-description.json) through the engine's public entry points: a rule
 * "matches" when it runs and applies its patch. Each rule's action is replaced by a mutate patch that
 * always changes the object, since the Go tests check MatchesResourceDescription alone (several
 * policies carry the long-removed `overlay`, or a validate rule).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import { cloneJson, isJsonObject, type JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';

interface PolicyCase {
  source: string;
  description: string;
  clusterRoles: string[];
  resource: JsonObject;
  policy: JsonObject;
  matches: boolean;
}
interface RuleCase {
  source: string;
  resource: JsonObject;
  rule: JsonObject;
  matches: boolean;
  userInfo?: { username: string; uid?: string; groups: string[] };
}
const data = JSON.parse(readFileSync(new URL('./upstream/match-resource-description.json', import.meta.url), 'utf8')) as {
  policies: PolicyCase[];
  rules: RuleCase[];
};

const MARK: JsonObject = { patchStrategicMerge: { metadata: { annotations: { matched: 'yes' } } } };

function request(object: JsonObject, userInfo: RuleCase['userInfo'] = { username: '', groups: [] }): AdmissionRequest {
  const apiVersion = String(object.apiVersion);
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const kind = String(object.kind);
  const meta = isJsonObject(object.metadata) ? object.metadata : {};
  return {
    uid: 'u',
    kind: { group, version, kind },
    resource: { group, version, resource: `${kind.toLowerCase()}s` },
    name: String(meta.name ?? ''),
    namespace: kind === 'Namespace' ? '' : String(meta.namespace ?? ''),
    operation: 'CREATE',
    userInfo,
    object,
    oldObject: null,
  };
}

/** Did the policy's own rules (not the pod-controller rules generated from them) apply? */
async function applies(policy: JsonObject, resource: JsonObject, clusterRoles: string[], userInfo?: RuleCase['userInfo']) {
  const compiled = compileKyvernoPolicy(policy);
  if (!compiled.ok) throw new Error(`does not compile: ${JSON.stringify(compiled.problems)}`);
  const result = await runKyvernoPolicies([compiled.policy], { request: request(resource, userInfo), clusterRoles, roles: [] });
  const rules = result.policies.flatMap((p) => p.rules.filter((r) => !r.rule.startsWith('autogen-')));
  expect(rules.filter((r) => r.status === 'error')).toEqual([]);
  return rules.some((r) => r.status === 'applied');
}

describe('upstream MatchesResourceDescription tables (whole policies)', () => {
  it.each(data.policies.map((c) => [`${c.source.split(' ')[1]}: ${c.description}`, c] as const))('%s', async (_, c) => {
    const policy = cloneJson(c.policy) as JsonObject;
    const spec = policy.spec as JsonObject;
    delete spec.validationFailureAction;
    for (const rule of spec.rules as JsonObject[]) {
      for (const action of ['mutate', 'validate', 'generate', 'verifyImages']) delete rule[action];
      rule.mutate = MARK;
    }
    expect(await applies(policy, c.resource, c.clusterRoles)).toBe(c.matches);
  });
});

describe('upstream match / exclude rules and namespace checks', () => {
  it.each(data.rules.map((c) => [c.source.split(' ').slice(1).join(' '), c] as const))('%s', async (_, c) => {
    const policy: JsonObject = {
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'p' },
      // Out of background mode, where Kyverno forbids matching on subjects.
      spec: { background: false, rules: [{ name: 'r', ...c.rule, mutate: MARK }] },
    };
    expect(await applies(policy, c.resource, [], c.userInfo)).toBe(c.matches);
  });
});
