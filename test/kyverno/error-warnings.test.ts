/**
 * A Kyverno rule that fails is an admission warning whether or not its policy sets spec.emitWarning:
 * engineapi.NewRuleResponse (pkg/engine/api/ruleresponse.go) sets emitWarning for the statuses error,
 * fail and warn, and GetWarningMessages (pkg/webhooks/utils/warning.go) reports a rule when
 * `rule.EmitWarning() || (policy emits warnings && status != skip)`. So an Ignore policy's failure,
 * whose changes are dropped, reaches the client as `policy <name>.<rule>: <message>`; a Fail policy's
 * failure denies the request, answered without warnings.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { pod, podRequest } from './helpers/requests.js';

type Obj = Record<string, unknown>;

function policy(name: string, spec: Obj): Obj {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name, annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      ...spec,
      rules: [
        // A JSON patch replacing a path the Pod does not have: the rule errors.
        { name: 'broken', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchesJson6902: '- op: replace\n  path: /metadata/nope/x\n  value: y' } },
        { name: 'label', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } },
      ],
    },
  };
}

async function review(...docs: Obj[]) {
  const set = buildPolicySet([parseDocuments('t.json', JSON.stringify(docs))]);
  return evaluate(set, podRequest(pod('web', ['c'])));
}

describe('a failing Kyverno rule', () => {
  it('is a warning of an Ignore policy without emitWarning; the rules that passed are not', async () => {
    const result = await review(policy('ignored', { failurePolicy: 'Ignore' }));
    expect(result.allowed).toBe(true);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/^policy ignored\.broken: .*\/metadata\/nope\/x/);
  });

  it('is one of the warnings of an Ignore policy with emitWarning, beside the rules that did not skip', async () => {
    const result = await review(policy('loud', { failurePolicy: 'Ignore', emitWarning: true }));
    expect(result.warnings.map((w) => w.slice(0, w.indexOf(':')))).toEqual(['policy loud.broken', 'policy loud.label']);
  });

  it('is no warning when a Fail policy denies the request', async () => {
    const result = await review(policy('strict', { failurePolicy: 'Fail' }));
    expect(result.allowed).toBe(false);
    expect(result.warnings).toEqual([]);
  });
});
