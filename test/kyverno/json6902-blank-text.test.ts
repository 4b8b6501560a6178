/**
 * A patchesJson6902 text that is blank, only comments, or `null` is a patch of no operation in Kyverno:
 * mutate.NewPatcher makes a patcher for any text with len > 0 (pkg/engine/mutate/mutation.go),
 * convertPatchesToJSON turns its YAML into `null` (sigs.k8s.io/yaml YAMLToJSON) and json-patch's
 * DecodePatch reads `null` as an empty patch, so the rule applies nothing ("no patches applied"), and
 * policy validation (validateJSONPatch, the same decoding) accepts it. Only an empty text is no patch
 * (`empty mutate rule`).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/index.js';
import { compileKyvernoPolicy, runKyvernoPolicies } from '../../src/kyverno/index.js';
import { clusterPolicy, pod, podRequest } from './helpers/requests.js';

async function outcome(mutate: JsonObject): Promise<[string, string, string[]]> {
  const compiled = compileKyvernoPolicy(clusterPolicy('p', [{ name: 'r', mutate }]));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const result = await runKyvernoPolicies([compiled.policy], { request: podRequest(pod('web', ['a'])) });
  const rule = result.policies[0].rules[0];
  return [rule.status, rule.message, compiled.findings.map((f) => f.message)];
}

describe('a patchesJson6902 text that decodes to null', () => {
  it.each(['  ', '\n', '# only a comment', 'null', '~', '# {{ request.object.metadata.name }}'])('%j applies nothing, and is a valid policy', async (text) => {
    expect(await outcome({ patchesJson6902: text })).toEqual(['skipped', 'no patches applied', []]);
    const foreach = { foreach: [{ list: 'request.object.spec.containers', patchesJson6902: text }] };
    expect(await outcome(foreach)).toEqual(['skipped', '0 elements processed', []]);
  });
});
