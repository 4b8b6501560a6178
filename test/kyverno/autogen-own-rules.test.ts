/**
 * A policy's own rules named `autogen-…` (what Kyverno before 1.7 wrote into spec.rules, so policies exported
 * from a cluster still carry them). Kyverno's computeRules (pkg/autogen/v1/autogen.go) drops them whenever it
 * generates a rule for pod controllers, from a rule of any type, and runs the generated ones instead; when it
 * generates none, every rule stays.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies, type CompiledKyvernoPolicy } from '../../src/kyverno/index.js';

const ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';

const podRule: JsonObject = {
  name: 'team',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  mutate: { patchStrategicMerge: { metadata: { labels: { '+(team)': 'new' } } } },
};

/** A rule an older Kyverno generated, with the overlay it had then. */
const staleAutogenRule: JsonObject = {
  name: 'autogen-team',
  match: { any: [{ resources: { kinds: ['DaemonSet', 'Deployment'] } }] },
  mutate: { patchStrategicMerge: { spec: { template: { metadata: { labels: { '+(team)': 'old' } } } } } },
};

const validatePodRule: JsonObject = {
  name: 'check',
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  validate: { pattern: { metadata: { labels: { team: '?*' } } } },
};

function compile(rules: JsonObject[], annotation?: string): CompiledKyvernoPolicy {
  const result = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'add-team', ...(annotation ? { annotations: { [ANNOTATION]: annotation } } : {}) },
    spec: { rules },
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.policy;
}

async function teamLabel(policy: CompiledKyvernoPolicy, kind: 'Deployment' | 'DaemonSet'): Promise<unknown> {
  const object: JsonObject = {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: 'web', namespace: 'shop' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
  const result = await runKyvernoPolicies([policy], {
    request: {
      uid: 'u',
      kind: { group: 'apps', version: 'v1', kind },
      resource: { group: 'apps', version: 'v1', resource: `${kind.toLowerCase()}s` },
      name: 'web',
      namespace: 'shop',
      operation: 'CREATE',
      userInfo: { username: 'alice', groups: [] },
      object,
      oldObject: null,
    },
  });
  return ((result.object as JsonObject).spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels.team;
}

describe("a policy's own autogen- rules", () => {
  it('are replaced by the generated rules', async () => {
    const policy = compile([podRule, staleAutogenRule], 'Deployment');
    expect(policy.rules.map((r) => `${r.name}${r.autogen ? ` (${r.autogen})` : ''}`)).toEqual(['team', 'autogen-team (autogen)']);
    expect(await teamLabel(policy, 'Deployment')).toBe('new');
    expect(await teamLabel(policy, 'DaemonSet')).toBeUndefined();
  });

  it('are replaced when only a validate rule is generated', async () => {
    const policy = compile([validatePodRule, staleAutogenRule]);
    expect(policy.rules.map((r) => r.name)).toEqual([]);
    expect(await teamLabel(policy, 'DaemonSet')).toBeUndefined();
  });

  it('stay when nothing is generated', async () => {
    for (const policy of [compile([podRule, staleAutogenRule], 'none'), compile([staleAutogenRule])]) {
      expect(policy.rules.map((r) => r.name)).toEqual(policy.rules.length === 2 ? ['team', 'autogen-team'] : ['autogen-team']);
      expect(await teamLabel(policy, 'DaemonSet')).toBe('old');
    }
  });
});
