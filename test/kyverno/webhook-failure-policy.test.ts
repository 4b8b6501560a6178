/**
 * `spec.webhookConfiguration.failurePolicy`, which Kyverno reads before the deprecated `spec.failurePolicy`
 * (api/kyverno/v1/spec_types.go GetFailurePolicy; chainsaw force-failure-policy-ignore/cluster-policy/fail):
 * a failing rule of a policy with `webhookConfiguration: {failurePolicy: Ignore}` lets the request through.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { parseDocuments } from '../../src/policyset/index.js';
import { pod, podRequest } from './helpers/requests.js';

function policy(spec: JsonObject): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p' },
    spec: {
      ...spec,
      // Fails at admission: the JSON patch replaces a member the Pod does not have.
      rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchesJson6902: '- op: replace\n  path: /spec/missing/x\n  value: 1' } }],
    },
  };
}

async function outcome(spec: JsonObject) {
  const compiled = compileKyvernoPolicy(policy(spec));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const object = pod('web', ['a']);
  const result = await runKyvernoPolicies([compiled.policy], { request: podRequest(object) });
  return { failurePolicy: result.policies[0].failurePolicy, rejected: result.rejection !== undefined };
}

describe('the failure policy of a ClusterPolicy', () => {
  it.each([
    [{}, 'Fail'],
    [{ failurePolicy: 'Ignore' }, 'Ignore'],
    [{ webhookConfiguration: { failurePolicy: 'Ignore' } }, 'Ignore'],
    [{ webhookConfiguration: { failurePolicy: 'Fail' } }, 'Fail'],
    [{ failurePolicy: 'Ignore', webhookConfiguration: { timeoutSeconds: 5 } }, 'Ignore'],
  ] as const)('%j → %s', async (spec, expected) => {
    expect(await outcome(spec as JsonObject)).toEqual({ failurePolicy: expected, rejected: expected === 'Fail' });
  });

  it('refuses the deprecated fields beside their replacements, and timeouts outside 1..30 s (Spec.Validate)', () => {
    const problemsOf = (spec: JsonObject) => {
      const result = compileKyvernoPolicy(policy(spec));
      return result.ok ? [] : result.problems;
    };
    expect(problemsOf({ failurePolicy: 'Fail', webhookConfiguration: { failurePolicy: 'Ignore' } })).toEqual([
      { path: 'spec.failurePolicy', message: 'remove the deprecated field and use spec.webhookConfiguration.failurePolicy instead' },
    ]);
    expect(problemsOf({ webhookTimeoutSeconds: 10, webhookConfiguration: { timeoutSeconds: 10 } })).toEqual([
      { path: 'spec.webhookTimeoutSeconds', message: 'remove the deprecated field and use spec.webhookConfiguration.timeoutSeconds instead' },
    ]);
    expect(problemsOf({ webhookConfiguration: { timeoutSeconds: 31 } })).toEqual([
      { path: 'spec.webhookConfiguration.timeoutSeconds', message: 'the timeout value must be between 1 and 30 seconds' },
    ]);
    expect(problemsOf({ webhookTimeoutSeconds: 0 })).toEqual([{ path: 'spec.webhookTimeoutSeconds', message: 'the timeout value must be between 1 and 30 seconds' }]);
    expect(problemsOf({ webhookTimeoutSeconds: 30, webhookConfiguration: { failurePolicy: 'Ignore' } })).toEqual([]);
  });

  it('refuses a webhookConfiguration.failurePolicy that is neither Fail nor Ignore', () => {
    const result = compileKyvernoPolicy(policy({ webhookConfiguration: { failurePolicy: 'ignore' } }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems).toContainEqual({ path: 'spec.webhookConfiguration.failurePolicy', message: 'must be one of Fail, Ignore' });
  });
});

describe('chainsaw policy-validation/{cluster-policy,policy}/invalid-timeout (copied in upstream/invalid-timeout)', () => {
  it.each(['cluster-policy-1', 'cluster-policy-2', 'policy-1', 'policy-2'])('%s is refused', (name) => {
    const text = readFileSync(new URL(`./upstream/invalid-timeout/${name}.yaml`, import.meta.url), 'utf8');
    const [doc] = parseDocuments(`${name}.yaml`, text).documents;
    const result = compileKyvernoPolicy(doc.value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.message)).toContain('the timeout value must be between 1 and 30 seconds');
  });
});
