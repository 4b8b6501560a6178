import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { buildPolicySet, parseDocuments, type PolicySet } from '../../src/policyset/index.js';
import { parseJson } from '../../src/json/index.js';

const vectorsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'map');

/**
 * Every document of a vector file (a YAML multi-document stream). An integer past ±2^53 stays a bigint
 * (a number would have lost its last digits already): `jsonTextOf` writes it with all of them.
 */
export function loadVectors(relative: string): any[] {
  const text = readFileSync(join(vectorsDir, relative), 'utf8');
  return parseAllDocuments(text, { intAsBigInt: true }).map((d) => {
    if (d.errors.length) throw new Error(`${relative}: ${d.errors[0].message}`);
    return safeIntegersAsNumbers(d.toJS({ maxAliasCount: -1 }));
  });
}

function safeIntegersAsNumbers(v: unknown): any {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  if (Array.isArray(v)) return v.map(safeIntegersAsNumbers);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, safeIntegersAsNumbers(x)]));
  return v;
}

/** `JSON.stringify`, with a bigint written as its digits (as the API server writes an int64). */
export function jsonTextOf(value: unknown): string {
  const marker = '\u0000int64:';
  const text = JSON.stringify(value, (_k, x) => (typeof x === 'bigint' ? `${marker}${x}` : x));
  return text.replace(/"\\u0000int64:(-?\d+)"/g, '$1');
}

/** A vector's object as the server reads it from the review's JSON (src/json's parser: int64s exact). */
export function jsonDocumentOf(value: unknown): any {
  return value === undefined ? undefined : parseJson(jsonTextOf(value));
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
