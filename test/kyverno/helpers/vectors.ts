/** Loading the Kyverno conformance vectors (test/vectors/kyverno, copied from shared/vectors/kyverno). */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { JsonObject, JsonValue } from '../../../src/json/index.js';

export const VECTOR_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/kyverno');

export interface Vector {
  file: string;
  name: string;
  source: string;
  level: string;
  tags: string[];
  policies?: JsonObject[];
  resource?: JsonValue;
  oldResource?: JsonValue;
  request?: { operation?: string; namespace?: string; subResource?: string; userInfo?: JsonObject; roles?: string[]; clusterRoles?: string[] };
  namespaceLabels?: Record<string, Record<string, string>>;
  context?: JsonObject;
  rule?: JsonObject;
  foreach?: JsonObject;
  patchesJson6902?: string;
  patchStrategicMerge?: JsonValue;
  document?: JsonValue;
  inputs?: string[];
  expect: Record<string, JsonValue | undefined> & {
    compare?: string;
    patched?: JsonValue;
    patchedSubset?: JsonValue;
    patchedNot?: JsonValue;
    patches?: JsonValue[];
    patchesOrder?: string;
    preprocessedPatch?: JsonValue;
    preprocessedPatchListLength?: Record<string, number>;
    document?: JsonValue;
    joined?: JsonValue;
    error?: string;
    skipped?: boolean;
    status?: string;
    ruleStatus?: Record<string, string>;
    ruleCount?: number;
    warnings?: string[];
    allowed?: boolean;
    compiled?: boolean;
  };
  notes?: string[];
}

export function loadVectors(): Vector[] {
  return readdirSync(VECTOR_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({ file, ...(parse(readFileSync(join(VECTOR_DIR, file), 'utf8')) as Omit<Vector, 'file'>) }));
}
