/**
 * spec.evaluation.mode of a MutatingPolicy. Kyverno's CRD takes any string there, an empty one is the
 * default (MutatingPolicySpec.EvaluationMode gives Kubernetes), and nothing of Kyverno's MutatingPolicy
 * engine, webhook handler or webhook registration reads it: the policy runs at admission whatever it
 * says. Amender refused an empty or unknown mode; it now runs such a policy (an unknown mode reported,
 * kept). JSON stays refused, as documented (it is meant for payloads that are no admission request).
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { answerReview } from '../../src/server/index.js';
import { policySetFrom, reviewOf } from '../server/helpers.js';

const policy = (mode: string) => `apiVersion: policies.kyverno.io/v1
kind: MutatingPolicy
metadata: {name: labels}
spec:
  evaluation: {mode: ${mode}}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: 'Object{metadata: Object.metadata{labels: {"seen": "true"}}}'}
`;

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default' } };

async function run(mode: string) {
  const set = policySetFrom(policy(mode));
  const reply = await answerReview(reviewOf(CONFIGMAP) as JsonValue, set);
  if (reply.status !== 200) throw new Error(`status ${reply.status}`);
  const response = reply.body.response as { allowed: boolean; patch?: string };
  const patch = response.patch ? (JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as JsonValue) : undefined;
  return { problems: set.problems.map((p) => ({ path: p.path, effect: p.effect, message: p.message })), patch };
}

const LABELED = [{ op: 'add', path: '/metadata/labels', value: { seen: 'true' } }];

describe('MutatingPolicy spec.evaluation.mode', () => {
  it('an empty mode is the default: the policy runs, nothing is reported', async () => {
    const { problems, patch } = await run('""');
    expect(problems).toEqual([]);
    expect(patch).toEqual(LABELED);
  });

  it('a mode Kyverno does not know is reported, and the policy runs as Kyverno runs it', async () => {
    const { problems, patch } = await run('kubernetes');
    expect(problems).toEqual([{ path: 'spec.evaluation.mode', effect: 'kept', message: expect.stringContaining('Unsupported value: "kubernetes"') }]);
    expect(patch).toEqual(LABELED);
  });

  it('JSON is refused', async () => {
    const { problems, patch } = await run('JSON');
    expect(problems).toEqual([{ path: 'spec.evaluation.mode', effect: 'ignored', message: expect.stringContaining('JSON mode evaluates JSON payloads') }]);
    expect(patch).toBeUndefined();
  });
});
