/**
 * A JSON patch `test` of a member that is missing or null. kube-apiserver builds each operation from the
 * CEL JSONPatch (mutating/patch/json_patch.go evaluatePatchExpression): `value` is written only when the
 * field is set, and a CEL `null` is written as the raw text `null`. evanphx/json-patch v4's test reads a
 * missing or null member as a nil node and passes only when the operation has no value node
 * (patch.go test: `op.value() == nil || op.value().raw == nil`), so `value: null` fails the test (the
 * mutation's patch is discarded) where leaving `value` out passes it.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { parseJson } from '../../src/json/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { jsonPatch, policy, set } from './helpers.js';

const request = podRequest(
  parseJson(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', creationTimestamp: null }, spec: { containers: [{ name: 'c', image: 'i' }] } })) as any,
  { uid: 'u' },
);
const guarded = (test: string) => jsonPatch(`[${test}, JSONPatch{op: "add", path: "/metadata/annotations", value: {"tested": "yes"}}]`);
const ADDED = [{ op: 'add', path: '/metadata/annotations', value: { tested: 'yes' } }];

describe('a JSON patch test of a missing or null member', () => {
  it.each([
    ['missing, value null', 'JSONPatch{op: "test", path: "/metadata/annotations", value: null}', []],
    ['null, value null', 'JSONPatch{op: "test", path: "/metadata/creationTimestamp", value: null}', []],
    ['missing, no value', 'JSONPatch{op: "test", path: "/metadata/annotations"}', ADDED],
    ['null, no value', 'JSONPatch{op: "test", path: "/metadata/creationTimestamp"}', ADDED],
    ['present, no value', 'JSONPatch{op: "test", path: "/metadata/name"}', []],
    ['present, equal value', 'JSONPatch{op: "test", path: "/metadata/name", value: "p"}', ADDED],
  ])('%s', async (_what, test, patch) => {
    const r = await evaluate(set(policy('p', [guarded(test)])), request);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual(patch);
  });
});
