import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { buildPolicySet, parseDocuments, type PolicySet } from '../../src/policyset/index.js';

const vectorsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'map');

/** Every document of a vector file (a YAML multi-document stream). */
export function loadVectors(relative: string): any[] {
  const text = readFileSync(join(vectorsDir, relative), 'utf8');
  return parseAllDocuments(text).map((d) => {
    if (d.errors.length) throw new Error(`${relative}: ${d.errors[0].message}`);
    return d.toJS({ maxAliasCount: -1 });
  });
}

export type Obj = Record<string, any>;

/** A MutatingAdmissionPolicy `name` applying `mutations` to created Pods, never reinvoked. */
export function policy(name: string, mutations: Obj[], failurePolicy = 'Fail'): Obj {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy,
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
      reinvocationPolicy: 'Never',
      mutations,
    },
  };
}

export const jsonPatch = (expression: string): Obj => ({ patchType: 'JSONPatch', jsonPatch: { expression } });
export const applyConfig = (expression: string): Obj => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });

/** The set of `policies`, each with a binding `b-<name>`, in that order; it must have no problems. */
export function set(...policies: Obj[]): PolicySet {
  const bindings = policies.map((p) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name: `b-${p.metadata.name}` },
    spec: { policyName: p.metadata.name },
  }));
  const s = buildPolicySet([parseDocuments('t.json', JSON.stringify([...policies, ...bindings]))]);
  expect(s.problems).toEqual([]);
  return s;
}
