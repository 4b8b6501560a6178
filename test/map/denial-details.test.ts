/**
 * The `details` of a MutatingAdmissionPolicy denial: the policy plugin's Dispatch
 * (generic/policy_dispatcher.go) builds it with admission.NewForbidden, whose extractResourceName
 * (pkg/admission/errors.go) names the request's name, else the object's metadata.name, else its
 * metadata.generateName, else "Unknown"; group and kind are the request's group and resource.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { parseJson } from '../../src/json/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { jsonPatch as patch, policy, set } from './helpers.js';

const failing = set(policy('p', [patch('[JSONPatch{op: "remove", path: "/metadata/nothere"}]')]));

async function detailsFor(metadata: Record<string, string>, requestName: string): Promise<unknown> {
  const object = parseJson(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', ...metadata }, spec: { containers: [{ name: 'c', image: 'i' }] } }));
  const r = await evaluate(failing, podRequest(object as any, { uid: 'u', name: requestName }));
  expect(r.allowed).toBe(false);
  return r.allowed ? undefined : r.status.details;
}

describe('the name a denial gives', () => {
  it.each([
    ['the request name', { name: 'from-object' }, 'from-request', 'from-request'],
    ['the object name when the request has none', { name: 'from-object' }, '', 'from-object'],
    ['the generateName of a CREATE that relies on it', { generateName: 'web-' }, '', 'web-'],
    ['"Unknown" without either', {}, '', 'Unknown'],
  ])('%s', async (_what, metadata, requestName, expected) => {
    expect(await detailsFor(metadata, requestName)).toMatchObject({ name: expected, group: '', kind: 'pods' });
  });
});
