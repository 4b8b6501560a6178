/**
 * The `pod-policies.kyverno.io/autogen-controllers` annotation read as Kyverno reads it
 * (pkg/autogen/v1/autogen.go computeRules, rule.go generateRuleForControllers / generateCronJobRule):
 * names are a set; `none` alone disables; `all` alone is the six pod controllers; otherwise the names that are
 * pod controllers, or — when none of them is — every name as it is, which is how Kyverno generates rules for a
 * custom resource embedding a Pod template (an Argo `Rollout`; kyverno/kyverno#7446, #10825).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';

const ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';

function policy(annotation: string): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'add-team', annotations: { [ANNOTATION]: annotation } },
    spec: {
      rules: [
        {
          name: 'team',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { team: '{{ request.object.metadata.name }}' } } } },
        },
      ],
    },
  };
}

function rulesOf(annotation: string): string[] {
  const result = compileKyvernoPolicy(policy(annotation));
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.policy.rules.map(
    (r) => `${r.name}:${(r.match.any ?? []).flatMap((f) => (f.kinds ?? []).map((k) => `${k.group}/${k.version}/${k.kind}`)).join('+')}`,
  );
}

describe('autogen-controllers annotation', () => {
  it('a custom controller named alone gets its own rule, matching that kind', () => {
    expect(rulesOf('Rollout')).toEqual(['team:*/*/Pod', 'autogen-team:*/*/Rollout']);
    expect(rulesOf('argoproj.io/v1alpha1/Rollout')).toEqual(['team:*/*/Pod', 'autogen-team:argoproj.io/v1alpha1/Rollout']);
    expect(rulesOf('Rollout,CronJob')).toEqual(['team:*/*/Pod', 'autogen-team:*/*/Rollout', 'autogen-cronjob-team:batch/v1/CronJob']);
  });

  it('beside a pod controller, a custom name is dropped (kyverno/kyverno#7446)', () => {
    expect(rulesOf('Deployment,Rollout')).toEqual(['team:*/*/Pod', 'autogen-team:apps/v1/Deployment']);
  });

  it('none and all only when alone in the set', () => {
    expect(rulesOf('none')).toEqual(['team:*/*/Pod']);
    expect(rulesOf('none,none')).toEqual(['team:*/*/Pod']);
    // `all` written alone is refused (ValidateAutogenAnnotation, ./api-limits.test.ts); as a set it still means all
    expect(compileKyvernoPolicy(policy('all')).ok).toBe(false);
    expect(rulesOf('all,all').map((r) => r.split(':')[0])).toEqual(['team', 'autogen-team', 'autogen-cronjob-team']);
    expect(rulesOf('all,all')[1]).toBe(
      'autogen-team:apps/v1/DaemonSet+apps/v1/Deployment+batch/v1/Job+apps/v1/StatefulSet+apps/v1/ReplicaSet+*/v1/ReplicationController',
    );
  });

  it('mutates the custom resource under spec.template', async () => {
    const compiled = compileKyvernoPolicy(policy('Rollout'));
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    const rollout: JsonObject = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { template: { metadata: { name: 'web-pod', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const result = await runKyvernoPolicies([compiled.policy], {
      request: {
        uid: 'u',
        kind: { group: 'argoproj.io', version: 'v1alpha1', kind: 'Rollout' },
        resource: { group: 'argoproj.io', version: 'v1alpha1', resource: 'rollouts' },
        name: 'web',
        namespace: 'shop',
        operation: 'CREATE',
        userInfo: { username: 'alice', groups: [] },
        object: rollout,
        oldObject: null,
      },
    });
    expect(result.policies.flatMap((p) => p.rules.map((r) => `${r.rule}:${r.status}`))).toEqual(['autogen-team:applied']);
    expect(result.object).toMatchObject({ spec: { template: { metadata: { labels: { app: 'web', team: 'web-pod' } } } } });
  });
});
