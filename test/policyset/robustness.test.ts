import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';

/** A small deterministic generator of arbitrary JSON, biased towards the shapes policies have. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const KEYS = ['apiVersion', 'kind', 'metadata', 'spec', 'name', 'namespace', 'labels', 'matchConstraints', 'resourceRules', 'mutations', 'patchType', 'jsonPatch', 'applyConfiguration', 'expression', 'variables', 'matchConditions', 'paramKind', 'paramRef', 'selector', 'matchLabels', 'matchExpressions', 'operator', 'values', 'policyName', 'failurePolicy', 'reinvocationPolicy', '__proto__', 'constructor', 'rules', 'mutate'];
const STRINGS = ['', 'x', '*', 'CREATE', 'DELETE', 'v1', 'admissionregistration.k8s.io/v1', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding', 'kyverno.io/v1', 'ClusterPolicy', 'JSONPatch', 'ApplyConfiguration', 'Object{}', '[JSONPatch{op: "add", path: "/a", value: 1}]', 'In', 'Exists', 'a/b', 'p', 'Fail', 'Ignore', 'IfNeeded'];

function value(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 5 || k < 0.3) return STRINGS[Math.floor(r() * STRINGS.length)];
  if (k < 0.4) return Math.floor(r() * 10) - 2;
  if (k < 0.45) return r() < 0.5 ? null : true;
  if (k < 0.6) return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 5); i > 0; i--) Object.defineProperty(o, KEYS[Math.floor(r() * KEYS.length)], { value: value(r, depth + 1), enumerable: true, configurable: true, writable: true });
  return o;
}

function document(r: () => number): unknown {
  const kinds: [string, string][] = [
    ['admissionregistration.k8s.io/v1', 'MutatingAdmissionPolicy'],
    ['admissionregistration.k8s.io/v1', 'MutatingAdmissionPolicyBinding'],
    ['kyverno.io/v1', 'ClusterPolicy'],
    ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'],
    ['v1', 'ConfigMap'],
    ['v1', 'Namespace'],
  ];
  const [apiVersion, kind] = kinds[Math.floor(r() * kinds.length)];
  return { apiVersion, kind, metadata: { name: 'p', ...(r() < 0.3 ? (value(r, 3) as object) : {}) }, spec: value(r, 1) };
}

describe('hostile policy sources', () => {
  it('never throw, and every problem names its document', async () => {
    const r = rng(42);
    for (let round = 0; round < 200; round++) {
      const docs = Array.from({ length: 4 }, () => document(r));
      const set = buildPolicySet([parseDocuments(`round-${round}.json`, JSON.stringify(docs))]);
      for (const p of set.problems) {
        expect(p.source).toBe(`round-${round}.json`);
        expect(typeof p.message).toBe('string');
      }
      const result = await evaluate(set, {
        uid: 'u',
        kind: { group: '', version: 'v1', kind: 'Pod' },
        resource: { group: '', version: 'v1', resource: 'pods' },
        namespace: 'default',
        name: 'p',
        operation: 'CREATE',
        userInfo: {},
        object: value(r, 0) as any,
      });
      expect(typeof result.allowed).toBe('boolean');
      // An exception caught at the engine boundary would be a bug somewhere inside.
      if (!result.allowed) expect(result.status.message).not.toContain('amender engine:');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
