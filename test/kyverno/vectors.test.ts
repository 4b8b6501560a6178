/**
 * Every vector of test/vectors/kyverno (copied from shared/vectors/kyverno), at its level:
 * engine / admission through the public API (compile + run), rule / foreach-entry / patch /
 * smp-preprocess / substitute against the units they describe, generate-patches / join-patches against the jsonpatch
 * module. See helpers/cluster.ts for what the live-cluster vectors assumed.
 */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../src/admission/index.js';
import { cloneJson, getOwn, isJsonObject, jsonEqual, type JsonObject, type JsonValue } from '../../src/json/index.js';
import { applyPatch, createPatch } from '../../src/jsonpatch/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import {
  compileKyvernoPolicy,
  compileUnmatchedRule,
  runKyvernoPolicies,
  type KyvernoResult,
} from '../../src/kyverno/index.js';
import { JsonContext } from '../../src/kyverno/context/context.js';
import { KyvernoRuleError } from '../../src/kyverno/errors.js';
import { applyKyvernoPatch, decodeKyvernoPatch } from '../../src/kyverno/patchers/json6902.js';
import { applyPatches } from '../../src/kyverno/patchers/patchers.js';
import { kyvernoQuery } from '../../src/kyverno/context/query.js';
import { runRule } from '../../src/kyverno/rule.js';
import { ConditionFailure, GlobalConditionFailure, preprocessOverlay } from '../../src/kyverno/patchers/smp-preprocess.js';
import { applyStrategicMerge } from '../../src/kyverno/patchers/strategic.js';
import { substituteAll } from '../../src/kyverno/context/variables.js';
import { afterAdmission, beforeWebhooks, CHAINSAW_NAMESPACE, sourcesFor } from './helpers/cluster.js';
import { chainsawMatches, firstDifference, tidyEqual } from './helpers/compare.js';
import { loadVectors, type Vector } from './helpers/vectors.js';

const vectors = loadVectors();

const CLUSTER_SCOPED = new Set(['Namespace', 'Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding', 'CertificateSigningRequest', 'StorageClass', 'CustomResourceDefinition']);

const isCli = (v: Vector) => v.source.startsWith('test/cli/');

function meta(object: JsonValue): JsonObject {
  return isJsonObject(object) && isJsonObject(object.metadata) ? object.metadata : {};
}

/** Namespace-less namespaced objects: the CLI puts them in `default`, chainsaw in its test namespace. */
function withDefaultNamespace(object: JsonValue, namespace: string): JsonValue {
  if (!isJsonObject(object) || CLUSTER_SCOPED.has(String(object.kind)) || meta(object).namespace) return object;
  const out = cloneJson(object);
  out.metadata = { ...meta(out), namespace };
  return out;
}

function defaultNamespaceOf(v: Vector): string | undefined {
  if (isCli(v)) return 'default';
  if (v.level === 'admission') return CHAINSAW_NAMESPACE;
  return undefined;
}

function admissionRequest(v: Vector, object: JsonValue, namespace: string): AdmissionRequest {
  const o = isJsonObject(object) ? object : {};
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : 'v1';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const kind = typeof o.kind === 'string' ? o.kind : '';
  const operation = (v.request?.operation ?? 'CREATE') as AdmissionRequest['operation'];
  return {
    uid: `vector-${v.name}`,
    kind: { group, version, kind },
    resource: { group, version, resource: `${kind.toLowerCase()}s` },
    name: typeof meta(object).name === 'string' ? (meta(object).name as string) : '',
    namespace,
    ...(v.request?.subResource ? { subResource: v.request.subResource } : {}),
    operation,
    userInfo: (v.request?.userInfo as AdmissionRequest['userInfo']) ?? {},
    object: operation === 'DELETE' ? null : object,
    oldObject: v.oldResource ?? null,
  };
}

interface EngineRun {
  input: JsonValue;
  result: KyvernoResult;
}

async function runEngine(v: Vector): Promise<EngineRun> {
  const defaultNs = defaultNamespaceOf(v);
  let resource: JsonValue = v.resource ?? null;
  if (defaultNs) resource = withDefaultNamespace(resource, defaultNs);
  if (v.level === 'admission') resource = beforeWebhooks(resource);
  const namespace = v.request?.namespace ?? (meta(resource).namespace as string | undefined) ?? '';
  const policies = (v.policies ?? []).map((p, i) => {
    const doc = defaultNs && p.kind === 'Policy' ? withDefaultNamespace(p, defaultNs) : p;
    const compiled = compileKyvernoPolicy(doc);
    if (!compiled.ok) throw new Error(`policy ${i} does not compile: ${JSON.stringify(compiled.problems)}`);
    return compiled.policy;
  });
  const values: Record<string, JsonValue> = {};
  for (const [k, val] of Object.entries(v.context ?? {})) values[k] = val;
  const result = await runKyvernoPolicies(policies, {
    request: admissionRequest(v, resource, namespace),
    namespaceLabels: v.namespaceLabels?.[namespace],
    roles: v.request?.roles,
    clusterRoles: v.request?.clusterRoles,
    sources: sourcesFor(v.name),
    values,
  });
  return { input: resource, result };
}

const STATUS: Record<string, string> = { applied: 'pass', skipped: 'skip', error: 'error' };

function ruleOutcomes(result: KyvernoResult) {
  return result.policies.flatMap((p) => p.rules.map((r) => ({ ...r, kyverno: STATUS[r.status] })));
}

/** A rule's outcome; rules generated for pod controllers answer for the rule they come from. */
function statusOf(result: KyvernoResult, rule: string): string[] {
  return ruleOutcomes(result)
    .filter((r) => r.rule === rule || r.rule === `autogen-${rule}` || r.rule === `autogen-cronjob-${rule}`)
    .map((r) => r.kyverno);
}

function expectPatches(v: Vector, before: JsonValue, after: JsonValue): void {
  const actual = createPatch(before, after) as JsonValue[];
  const expected = v.expect.patches ?? [];
  if (v.expect.patchesOrder === 'exact') {
    expect(actual).toEqual(expected);
  } else {
    expect(actual.length).toBe(expected.length);
    for (const op of expected) expect(actual.some((a) => jsonEqual(a, op)), JSON.stringify(op)).toBe(true);
  }
}

function expectPatched(v: Vector, input: JsonValue, output: JsonValue): void {
  const e = v.expect;
  const defaultNs = defaultNamespaceOf(v);
  if (e.patched !== undefined) {
    const expected = defaultNs ? withDefaultNamespace(e.patched, defaultNs) : e.patched;
    if (e.compare === 'tidy-equal') {
      expect(tidyEqual(output, expected), firstDifference(output, expected)).toBe(true);
    } else {
      expect(jsonEqual(output, expected), firstDifference(output, expected)).toBe(true);
    }
  }
  if (e.patchedSubset !== undefined) {
    const stored = afterAdmission(output);
    expect(chainsawMatches(stored, e.patchedSubset), firstDifference(stored, e.patchedSubset)).toBe(true);
  }
  if (e.patchedNot !== undefined) expect(tidyEqual(output, e.patchedNot)).toBe(false);
  if (e.patches !== undefined) expectPatches(v, input, output);
}

function expectError(message: string | undefined, expected: string | undefined): void {
  expect(message, 'an error was expected').toBeDefined();
  if (expected) expect(message).toContain(expected);
}

async function checkEngine(v: Vector): Promise<void> {
  const { input, result } = await runEngine(v);
  const e = v.expect;
  const outcomes = ruleOutcomes(result);
  if (e.error !== undefined) {
    const failure = outcomes.find((r) => r.status === 'error');
    expectError(failure?.message ?? result.rejection?.message, e.error);
  } else {
    expect(outcomes.filter((r) => r.status === 'error'), 'unexpected rule errors').toEqual([]);
  }
  if (e.status !== undefined) expect(outcomes.map((r) => r.kyverno)).toContain(e.status);
  for (const [rule, status] of Object.entries(e.ruleStatus ?? {})) {
    expect(statusOf(result, rule), `rule ${rule}`).toContain(status);
  }
  if (e.ruleCount !== undefined) expect(outcomes.length).toBe(e.ruleCount);
  if (e.allowed) expect(result.rejection, 'the request must be admitted').toBeUndefined();
  for (const warning of e.warnings ?? []) {
    expect(result.warnings.some((w) => w.includes(warning)), `a warning containing ${warning}: ${JSON.stringify(result.warnings)}`).toBe(true);
  }
  // With ruleStatus, `skipped` describes those rules (checked above); other rules may still apply.
  if (e.skipped && !e.ruleStatus) expect(result.changed, 'nothing should change').toBe(false);
  expectPatched(v, input, result.object);
}

function emptyScope(query = kyvernoQuery, data: JsonObject = {}) {
  const ctx = new JsonContext(query, data);
  return {
    ctx,
    isDelete: false,
    sources: {},
    policyId: 'ClusterPolicy/test',
    refreshObject: (r: JsonValue) => ctx.set('request.object', r),
  };
}

async function checkRule(v: Vector): Promise<void> {
  const compiled = compileUnmatchedRule(v.rule ?? {});
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const resource = v.resource ?? null;
  const result = await runRule(compiled.rule, resource, emptyScope());
  if (v.expect.status) expect(STATUS[result.status]).toBe(v.expect.status);
  if (v.expect.error !== undefined) expectError(result.status === 'error' ? result.message : undefined, v.expect.error);
  expectPatched(v, resource, result.resource);
}

function checkForeachEntry(v: Vector): void {
  const entry = v.foreach ?? {};
  // `__mock__` in the vector's context: the Go test's JSON context answers every query with null.
  const mock = v.context && '__mock__' in v.context;
  const scope = emptyScope(mock ? () => null : kyvernoQuery, mock ? {} : (v.context ?? {}));
  const patches: JsonObject = {};
  for (const key of ['patchStrategicMerge', 'patchesJson6902']) if (key in entry) patches[key] = entry[key];
  let message: string | undefined;
  try {
    applyPatches(v.resource ?? null, substituteAll(patches, scope));
  } catch (error) {
    expect(error).toBeInstanceOf(KyvernoRuleError);
    message = (error as Error).message;
  }
  if (v.expect.error !== undefined) expectError(message, v.expect.error);
}

function checkPatch(v: Vector): void {
  const resource = v.resource ?? null;
  const output =
    v.patchesJson6902 !== undefined
      ? applyKyvernoPatch(resource, decodeKyvernoPatch(v.patchesJson6902))
      : applyStrategicMerge(resource, v.patchStrategicMerge ?? null).resource;
  expectPatched(v, resource, output);
}

function checkPreprocess(v: Vector): void {
  const e = v.expect;
  let output: JsonValue | undefined;
  let failure: unknown;
  try {
    output = preprocessOverlay(v.patchStrategicMerge ?? null, v.resource ?? null);
  } catch (error) {
    failure = error;
  }
  if (e.error !== undefined) {
    expectError(failure instanceof Error ? failure.message : undefined, e.error);
    if (e.preprocessError === 'ConditionError') expect(failure).toBeInstanceOf(ConditionFailure);
    if (e.preprocessError === 'GlobalConditionError') expect(failure).toBeInstanceOf(GlobalConditionFailure);
    return;
  }
  expect(failure).toBeUndefined();
  if (e.preprocessedPatch !== undefined) {
    expect(jsonEqual(output!, e.preprocessedPatch), firstDifference(output, e.preprocessedPatch)).toBe(true);
  }
  for (const [key, length] of Object.entries(e.preprocessedPatchListLength ?? {})) {
    const list = isJsonObject(output!) ? getOwn(output, key) : undefined;
    expect(Array.isArray(list) ? list.length : -1).toBe(length);
  }
}

function checkSubstitute(v: Vector): void {
  const data = (v.context ?? {}) as JsonObject;
  const request = isJsonObject(data.request) ? data.request : {};
  const scope = { ctx: new JsonContext(kyvernoQuery, data), isDelete: request.operation === 'DELETE' };
  let output: JsonValue | undefined;
  let failure: unknown;
  try {
    output = substituteAll(v.document ?? null, scope);
  } catch (error) {
    failure = error;
  }
  if (v.expect.error !== undefined) {
    expect(failure).toBeInstanceOf(KyvernoRuleError);
    expectError((failure as Error).message, v.expect.error);
  } else {
    expect(failure).toBeUndefined();
    expect(jsonEqual(output!, v.expect.document ?? null), firstDifference(output, v.expect.document)).toBe(true);
  }
}

/**
 * Kyverno's generatePatches (a JSON patch between two objects): Amender answers with the diff of the
 * final object, which applied to the resource must give it back.
 */
function checkGeneratePatches(v: Vector): void {
  const resource = v.resource ?? null;
  const target = v.expect.patched ?? null;
  const applied = applyPatch(resource, createPatch(resource, target));
  expect(applied.ok).toBe(true);
  if (applied.ok) expect(jsonEqual(applied.doc, target), firstDifference(applied.doc, target)).toBe(true);
  if (v.expect.patches !== undefined) expectPatches(v, resource, target);
}

/**
 * Policy validation: whether the policy is accepted (Kyverno's policy webhook), through Amender's policy
 * set, which refuses a policy that does not compile or has a finding Kyverno would refuse it for.
 */
function checkCompile(v: Vector): void {
  const [policy] = v.policies ?? [];
  const set = buildPolicySet([parseDocuments('vector.json', JSON.stringify([policy ?? null]))]);
  const refusals = set.problems.filter((p) => p.effect === 'ignored');
  if (v.expect.error !== undefined) {
    expect(set.kyvernoPolicies, 'the policy must be refused').toEqual([]);
    expectError(refusals.map((p) => p.message).join('\n'), v.expect.error);
  } else {
    expect(refusals, 'the policy must be accepted').toEqual([]);
    expect(set.kyvernoPolicies.length, 'the policy must be accepted').toBeGreaterThan(0);
  }
}

/**
 * Levels of Kyverno's own helpers that Amender has no counterpart for, with the reason: their vectors
 * stay in test/vectors for reference and are not run.
 */
const NOT_APPLICABLE: Record<string, string> = {
  'join-patches': "the reply carries one diff of the final object (spec/kyverno.md §4), so Kyverno's JoinPatches of per-policy patches is not needed",
};

const CHECKS: Record<string, (v: Vector) => void | Promise<void>> = {
  engine: checkEngine,
  admission: checkEngine,
  rule: checkRule,
  'foreach-entry': checkForeachEntry,
  patch: checkPatch,
  'smp-preprocess': checkPreprocess,
  'generate-patches': checkGeneratePatches,
  substitute: checkSubstitute,
  compile: checkCompile,
};

describe('Kyverno conformance vectors', () => {
  it('has vectors of every level', () => {
    const levels = new Set(vectors.map((v) => v.level));
    for (const level of Object.keys(CHECKS)) expect(levels).toContain(level);
    for (const level of levels) expect([...Object.keys(CHECKS), ...Object.keys(NOT_APPLICABLE)]).toContain(level);
  });
  for (const level of Object.keys(CHECKS)) {
    describe(level, () => {
      for (const v of vectors.filter((x) => x.level === level)) {
        it(v.name, async () => {
          await CHECKS[level](v);
        });
      }
    });
  }
});
