/**
 * A rule skipped by its preconditions says which conditions failed, with their `message`s, as Kyverno's rule
 * response does (pkg/engine/engine.go invokeRuleHandler: "preconditions not met" joined by "; " with the
 * messages pkg/engine/variables/evaluate.go collects: every `any` condition's when none holds, the first false
 * `all` condition's; for the old list form the first false condition's). The messages are the policy's text,
 * not substituted (preconditions are checked before the rule's properties are).
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { pod, podRequest } from './helpers/requests.js';

async function skipMessage(preconditions: JsonValue) {
  const compiled = compileKyvernoPolicy({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, preconditions, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } }],
    },
  });
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const result = await runKyvernoPolicies([compiled.policy], { request: podRequest(pod('web', ['a'])) });
  return result.policies.flatMap((p) => p.rules.map((r) => `${r.status}: ${r.message}`));
}

const cond = (holds: boolean, message?: string) => ({ key: 'x', operator: 'Equals', value: holds ? 'x' : 'y', ...(message === undefined ? {} : { message }) });

describe('the message of a rule skipped by its preconditions', () => {
  it.each([
    ['no messages', { any: [cond(false)] }, 'preconditions not met'],
    ['every any message', { any: [cond(false, 'not prod'), cond(false), cond(false, 'not {{ request.namespace }}')] }, 'preconditions not met; not prod; not {{ request.namespace }}'],
    ['the first false all message', { all: [cond(true, 'fine'), cond(false, 'first'), cond(false, 'second')] }, 'preconditions not met; first'],
    ['any failing, all holding', { any: [cond(false, 'any')], all: [cond(true, 'all')] }, 'preconditions not met; any'],
    ['any holding, all failing', { any: [cond(true, 'any')], all: [cond(false, 'all')] }, 'preconditions not met; all'],
    ['both failing', { any: [cond(false, 'a1'), cond(false, 'a2')], all: [cond(false, 'l1')] }, 'preconditions not met; a1; a2; l1'],
    ['the old list form', [cond(true, 'ok'), cond(false, 'old'), cond(false, 'later')], 'preconditions not met; old'],
  ] as const)('%s', async (_, preconditions, message) => {
    expect(await skipMessage(preconditions as unknown as JsonValue)).toEqual([`skipped: ${message}`]);
  });
});

describe('the message of a foreach rule that changed nothing', () => {
  it("is Kyverno's '0 elements processed' (pkg/engine/handlers/mutation/common.go mutateForEach)", async () => {
    const compiled = compileKyvernoPolicy({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'p', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
      spec: {
        rules: [
          {
            name: 'r',
            match: { any: [{ resources: { kinds: ['Pod'] } }] },
            mutate: { foreach: [{ list: 'request.object.spec.containers', preconditions: { all: [cond(false, 'never')] }, patchStrategicMerge: { metadata: { labels: { a: 'b' } } } }] },
          },
        ],
      },
    });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
    const result = await runKyvernoPolicies([compiled.policy], { request: podRequest(pod('web', ['a', 'b'])) });
    expect(result.policies.flatMap((p) => p.rules.map((r) => `${r.status}: ${r.message}`))).toEqual(['skipped: 0 elements processed']);
  });
});
