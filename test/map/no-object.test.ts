/**
 * A request without an object (a CONNECT whose review carries none): kube-apiserver's dispatchInvocations
 * (policy/mutating/dispatcher.go) skips every mutation of a matching invocation when the versioned object
 * is nil — no patcher is called, so there is neither a change nor an error, whatever the failurePolicy.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { applyConfig, jsonPatch, policy, set } from './helpers.js';

function connectPolicy(mutation: Record<string, unknown>) {
  const p = policy('p', [mutation]);
  p.spec.matchConstraints.resourceRules[0].operations = ['CONNECT'];
  p.spec.matchConstraints.resourceRules[0].resources = ['pods/exec'];
  return p;
}

describe('a CONNECT request without an object', () => {
  it.each([
    ['a JSON patch', jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"a": "b"}}]')],
    ['an apply configuration', applyConfig('Object{metadata: Object.metadata{labels: {"a": "b"}}}')],
  ])('%s is not applied, and is no error under failurePolicy Fail', async (_what, mutation) => {
    const request = { ...podRequest({}, { uid: 'u', name: 'p' }), operation: 'CONNECT' as const, subResource: 'exec', object: null };
    const r = await evaluate(set(connectPolicy(mutation)), request);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual([]);
    expect(r.outcomes.map((o) => `${o.policy}:${o.pass}:${o.result}`)).toEqual(['p:1:unchanged']);
  });
});
