/**
 * One Kyverno CLI test (commands/test/test.go): its values, user info, policies (applied in file order)
 * and resources loaded relative to the test file, every resource run through every policy, and the
 * selected results checked into table rows. Notes say where Amender does what a cluster does rather than
 * what Kyverno's CLI does.
 */
import { posix } from 'node:path';
import type { Operation } from '../../admission/index.js';
import { getOwn, isJsonObject, setOwn, type JsonObject } from '../../json/index.js';
import { isKyvernoPolicyDocument, type CompiledKyvernoPolicy } from '../../kyverno/index.js';
import { buildPolicySet, type SourceDocument } from '../../policyset/index.js';
import { readDocument, readInput } from '../documents.js';
import { CliInputError } from '../errors.js';
import type { CliIO } from '../io.js';
import { loadPolicies, type LoadedPolicies } from '../load.js';
import { checkResult, relativeTo, type CheckContext, type Counts, type Row } from './check.js';
import {
  evaluateMap,
  evaluateMutatingPolicy,
  evaluateResource,
  type EvaluateOptions,
  type MapUnderTest,
  type MutatingPolicyUnderTest,
  type PolicyResponse,
  type RequestInfo,
} from './evaluate.js';
import { mutatingPolicyKind } from '../../mpol/index.js';
import type { KyvernoTest } from './format.js';
import { loadResources, removeDuplicates, resourceDocuments, resourcesOfText, type LoadedResource } from './resources.js';
import type { Selector } from './selector.js';
import { selectResults } from './selector.js';
import { EMPTY_VALUES, readValuesDocument, type ValuesSpec } from './values.js';
import { foldKeyCase } from './go-keys.js';

export interface TestRunOutput {
  rows: Row[];
  /** Progress and notes, as `kyverno test` prints them before its table. */
  log: string[];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function strings(v: unknown, what: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new CliInputError(`${what}: expected a list of strings`);
  return v as string[];
}

/** A `UserInfo` file (cli.kyverno.io/v1alpha1, or the older kind-less form): roles, clusterRoles, userInfo. */
const USER_INFO_FILE_KEYS = ['apiVersion', 'kind', 'metadata', 'roles', 'clusterRoles', 'userInfo'];
const USER_INFO_KEYS = ['username', 'uid', 'groups', 'extra'];

export function readUserInfo(raw: JsonObject, source: string): RequestInfo {
  // Keys as Go's decoder matches them, case-insensitively.
  const doc = foldKeyCase(raw, USER_INFO_FILE_KEYS);
  for (const key of Object.keys(doc)) {
    if (!USER_INFO_FILE_KEYS.includes(key)) throw new CliInputError(`${source}: unknown key ${JSON.stringify(key)}`);
  }
  const rawUser = getOwn(doc, 'userInfo');
  if (rawUser !== undefined && !isJsonObject(rawUser)) throw new CliInputError(`${source}: userInfo: expected an object`);
  const user = rawUser === undefined ? undefined : foldKeyCase(rawUser, USER_INFO_KEYS);
  // authentication/v1 UserInfo, read strictly as Kyverno's CLI reads the file (yaml.UnmarshalStrict).
  for (const key of Object.keys(user ?? {})) {
    if (!USER_INFO_KEYS.includes(key)) throw new CliInputError(`${source}: userInfo: unknown key ${JSON.stringify(key)}`);
  }
  const info: RequestInfo = {
    username: user ? str(getOwn(user, 'username')) : undefined,
    groups: user ? strings(getOwn(user, 'groups'), `${source}: userInfo.groups`) : undefined,
    roles: strings(getOwn(doc, 'roles'), `${source}: roles`),
    clusterRoles: strings(getOwn(doc, 'clusterRoles'), `${source}: clusterRoles`),
  };
  const uid = user ? getOwn(user, 'uid') : undefined;
  if (uid !== undefined && uid !== null) {
    if (typeof uid !== 'string') throw new CliInputError(`${source}: userInfo.uid: expected a string`);
    if (uid !== '') info.uid = uid;
  }
  const extra = user ? getOwn(user, 'extra') : undefined;
  if (extra !== undefined && extra !== null) {
    if (!isJsonObject(extra)) throw new CliInputError(`${source}: userInfo.extra: expected a map of string lists`);
    const out: JsonObject = {};
    for (const key of Object.keys(extra)) {
      const values = strings(getOwn(extra, key), `${source}: userInfo.extra.${key}`);
      if (values !== undefined) setOwn(out, key, values);
    }
    if (Object.keys(out).length > 0) info.extra = out as Record<string, string[]>;
  }
  return info;
}

function docName(doc: JsonObject): string {
  const m = getOwn(doc, 'metadata');
  return (isJsonObject(m) && str(getOwn(m, 'name'))) || '';
}

/** Kyverno policies in the order of their files and documents, and the rules Amender does not run. */
function policiesInFileOrder(loaded: LoadedPolicies): { policies: CompiledKyvernoPolicy[]; otherRules: Set<string> } {
  const byId = new Map(loaded.set.kyvernoPolicies.map((p) => [p.id, p]));
  const policies: CompiledKyvernoPolicy[] = [];
  const otherRules = new Set<string>();
  for (const doc of loaded.documents) {
    if (!isKyvernoPolicyDocument(doc)) continue;
    const name = docName(doc);
    const m = getOwn(doc, 'metadata');
    const ns = getOwn(doc, 'kind') === 'Policy' ? ((isJsonObject(m) && str(getOwn(m, 'namespace'))) || 'default') : undefined;
    const id = ns === undefined ? `ClusterPolicy/${name}` : `Policy/${ns}/${name}`;
    const compiled = byId.get(id);
    if (compiled && !policies.includes(compiled)) policies.push(compiled);
    const spec = getOwn(doc, 'spec');
    const rules = isJsonObject(spec) ? getOwn(spec, 'rules') : undefined;
    for (const rule of Array.isArray(rules) ? rules : []) {
      if (isJsonObject(rule) && getOwn(rule, 'mutate') === undefined && typeof getOwn(rule, 'name') === 'string') otherRules.add(`${name}/${getOwn(rule, 'name') as string}`);
    }
  }
  return { policies, otherRules };
}

/** Params and other objects as Kyverno's CLI reads them: as written, none refused (BuildOptions.unstorableObjects). */
const AS_KYVERNO_CLI = { unstorableObjects: 'keep' } as const;

/** Policy kinds of a test that `amender test` does not run (validating, generating, CEL policies…). */
const NOT_RUN_KINDS = /^(ValidatingAdmissionPolicy|(Namespaced)?(Validating|ImageValidating|Generating|Deleting)Policy|(Cluster)?CleanupPolicy)$/;

const MAP_KINDS = new Set(['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);

function isAdmissionRegistration(doc: JsonObject): boolean {
  const v = getOwn(doc, 'apiVersion');
  return typeof v === 'string' && v.startsWith('admissionregistration.k8s.io/');
}

/** A policy the test runs on its own (each kind in sets of its own), as opposed to the objects they share. */
function isTestPolicy(d: SourceDocument): boolean {
  return isKyvernoPolicyDocument(d.value) || mutatingPolicyKind(d.value) !== undefined || (isAdmissionRegistration(d.value) && MAP_KINDS.has(String(getOwn(d.value, 'kind'))));
}

/**
 * The test's MutatingAdmissionPolicies in file order, each in a set of its own with its bindings and
 * every object that is not a policy (params, Namespaces, CRDs), so each runs alone as the CLI runs it.
 * Notes say where Kyverno's CLI binds it otherwise than a cluster, as `amender test` then does.
 */
function mapsUnderTest(loaded: LoadedPolicies, values: ValuesSpec, params: readonly SourceDocument[], log: string[]): MapUnderTest[] {
  const docs: SourceDocument[] = loaded.parsed.flatMap((p) => p.documents);
  const loadedNames = new Set(loaded.set.mutatingPolicies.filter((b) => !b.kyverno).map((b) => b.policy.name));
  const shared = [...docs.filter((d) => !isTestPolicy(d)), ...params];
  const namespaces = valueNamespaces(values, shared);
  const out: MapUnderTest[] = [];
  for (const doc of docs) {
    if (!isAdmissionRegistration(doc.value) || getOwn(doc.value, 'kind') !== 'MutatingAdmissionPolicy') continue;
    const name = docName(doc.value);
    if (!loadedNames.has(name) || out.some((m) => m.name === name)) continue;
    const bindings = docs.filter((d) => {
      const spec = getOwn(d.value, 'spec');
      return isAdmissionRegistration(d.value) && getOwn(d.value, 'kind') === 'MutatingAdmissionPolicyBinding' && isJsonObject(spec) && getOwn(spec, 'policyName') === name;
    });
    for (const b of bindings) {
      const spec = getOwn(b.value, 'spec') as JsonObject;
      const ref = getOwn(spec, 'paramRef');
      if (isJsonObject(ref) && getOwn(ref, 'selector') !== undefined) {
        log.push(
          `  note: binding ${docName(b.value)} selects params by label: they are passed together as one params.items list, in file order, as Kyverno's CLI passes them (a cluster evaluates the policy once per param)`,
        );
      }
    }
    if (bindings.length === 0) {
      log.push(`  note: MutatingAdmissionPolicy ${name} has no binding: it runs as if bound, as in Kyverno's CLI (a cluster never runs an unbound policy)`);
    }
    const spec = getOwn(doc.value, 'spec');
    const failurePolicy = isJsonObject(spec) && getOwn(spec, 'failurePolicy') === 'Ignore' ? 'Ignore' : 'Fail';
    const objects = [...namespaces, ...shared];
    out.push({ name, set: buildPolicySet([doc, ...bindings, ...objects], AS_KYVERNO_CLI), failurePolicy, documents: objects.map((d) => d.value) });
  }
  return out;
}

/** Namespaces the values describe, unless the test's own documents have them. */
function valueNamespaces(values: ValuesSpec, shared: readonly SourceDocument[]): SourceDocument[] {
  const known = new Set(shared.filter((d) => getOwn(d.value, 'kind') === 'Namespace').map((d) => docName(d.value)));
  return [...values.namespaceLabels].filter(([ns]) => !known.has(ns)).map(([ns, labels], i) => ({ source: 'values', index: i, value: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels } } }));
}

/**
 * The test's Kyverno MutatingPolicies in file order (that the set accepted), each in a set of its own
 * with every document that is not a policy (Namespaces, CRDs), so each runs alone as the CLI runs it.
 */
function mutatingPoliciesUnderTest(loaded: LoadedPolicies, values: ValuesSpec, params: readonly SourceDocument[]): MutatingPolicyUnderTest[] {
  const docs: SourceDocument[] = loaded.parsed.flatMap((p) => p.documents);
  const accepted = new Set(loaded.set.mutatingPolicies.filter((b) => b.kyverno).map((b) => `${b.kyverno!.kind}/${b.kyverno!.namespace ?? ''}/${b.kyverno!.name}`));
  const shared = [...docs.filter((d) => !isTestPolicy(d)), ...params];
  const namespaces = valueNamespaces(values, shared);
  const out: MutatingPolicyUnderTest[] = [];
  for (const doc of docs) {
    const kind = mutatingPolicyKind(doc.value);
    if (!kind) continue;
    const set = buildPolicySet([doc, ...namespaces, ...shared], AS_KYVERNO_CLI);
    const bound = set.mutatingPolicies.find((b) => b.kyverno);
    if (!bound) continue;
    const key = `${kind}/${bound.kyverno!.namespace ?? ''}/${bound.kyverno!.name}`;
    if (!accepted.has(key) || out.some((m) => m.kind === kind && m.name === bound.kyverno!.name)) continue;
    out.push({ name: bound.kyverno!.name, kind, set, failurePolicy: bound.policy.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail' });
  }
  return out;
}

async function loadValues(test: KyvernoTest, dir: string, io: CliIO): Promise<ValuesSpec> {
  if (test.values) return test.values;
  if (test.variables === undefined) return EMPTY_VALUES;
  const path = relativeTo(dir, test.variables);
  try {
    return readValuesDocument(await readDocument(path, io));
  } catch (err) {
    throw new CliInputError(`values file ${path}: ${(err as Error).message}`);
  }
}

export async function runKyvernoTest(test: KyvernoTest, file: string, io: CliIO, selector: Selector, counts: Counts, nextId: () => number): Promise<TestRunOutput> {
  const log: string[] = [];
  const dir = posix.dirname(file);
  const results = selectResults(selector, test.results);
  if (results.length === 0) return { rows: [], log };
  if (test.legacy) log.push(`  note: ${file} uses the older kind-less test schema (the Kyverno CLI now asks for apiVersion ${'cli.kyverno.io/v1alpha1'}, kind Test); Amender reads it`);
  const values = await loadValues(test, dir, io);
  const userInfo = test.userinfo !== undefined ? readUserInfo(await readDocument(relativeTo(dir, test.userinfo), io), relativeTo(dir, test.userinfo)) : undefined;
  if (test.policies.length === 0) throw new CliInputError('the test names no policies');
  // Values stand in for context entries only a cluster can fill, as in Kyverno's CLI: such policies run.
  const loaded = await loadPolicies(test.policies.map((p) => relativeTo(dir, p)), io, { contextValues: true, unknownVariables: 'keep', ...AS_KYVERNO_CLI });
  const invalidPolicies = new Map<string, { reason: string; message: string }>();
  for (const p of loaded.set.problems) {
    const line = `${p.path ? `${p.path}: ` : ''}${p.message.split('\n')[0]}`;
    if (p.effect === 'ignored' && p.name) {
      const before = invalidPolicies.get(p.name)?.message;
      invalidPolicies.set(p.name, { reason: 'Invalid Policy', message: before ? `${before}; ${line}` : line });
    }
    // A document that could not be read (invalid YAML) has no kind or name to show.
    const what = p.kind === undefined && p.name === undefined ? '' : `${p.kind ?? '?'}/${p.name ?? '?'}: `;
    log.push(`  ${p.effect === 'ignored' ? 'ERROR' : 'warning'}: ${p.source}: ${what}${line}`);
  }
  const { policies, otherRules } = policiesInFileOrder(loaded);
  const params: SourceDocument[] = [];
  for (const path of test.paramResources.map((r) => relativeTo(dir, r))) {
    params.push(...resourceDocuments(path, await readInput(path, io)));
  }
  const maps = mapsUnderTest(loaded, values, params, log);
  const mpols = mutatingPoliciesUnderTest(loaded, values, params);
  for (const doc of loaded.documents) {
    const kind = String(getOwn(doc, 'kind'));
    if (!NOT_RUN_KINDS.test(kind) || invalidPolicies.has(docName(doc))) continue;
    invalidPolicies.set(docName(doc), { reason: 'Not run', message: `${kind} ${docName(doc)}: amender test runs Kyverno ClusterPolicy/Policy mutate rules and MutatingAdmissionPolicies only` });
  }
  if (mpols.length > 0 && policies.length > 0) {
    log.push('  note: Kyverno MutatingPolicies run before the ClusterPolicies/Policies, as in Amender\'s webhook (Kyverno\'s CLI runs them after)');
  }
  if (maps.length > 0 && policies.length > 0) {
    log.push('  note: MutatingAdmissionPolicies run before the Kyverno policies, as in a cluster (Kyverno\'s CLI runs them after)');
  }
  for (const result of results) {
    const policy = policies.find((p) => p.name === result.policy.split('/').pop());
    const names = [result.rule, `autogen-${result.rule}`, `autogen-cronjob-${result.rule}`];
    if (policy && result.rule !== '' && !otherRules.has(`${policy.name}/${result.rule}`) && !policy.rules.some((r) => names.includes(r.name))) {
      log.push(`  note: policy ${policy.name} has no rule ${result.rule}: its results are "Excluded" passes, as in the Kyverno CLI`);
    }
  }
  const { uniques, duplicates } = removeDuplicates(await loadResources(test.resources.map((r) => relativeTo(dir, r)), io, loaded.documents));
  for (const d of duplicates) log.push(`  warning: found duplicated resource ${d}`);
  const policyCount = policies.length + maps.length + mpols.length;
  log.push(`  Applying ${policyCount} ${policyCount === 1 ? 'policy' : 'policies'} to ${uniques.length} ${uniques.length === 1 ? 'resource' : 'resources'} ...`);

  const runs = new Map<string, Map<string, PolicyResponse[]>>();
  for (const op of new Set(['', ...results.map((r) => r.operation ?? '')])) {
    const byKey = new Map<string, PolicyResponse[]>();
    for (const r of uniques) {
      const options: EvaluateOptions = { set: loaded.set, policies, documents: loaded.documents, values, userInfo, ...(op ? { operation: op as Operation } : {}) };
      const responses: PolicyResponse[] = [];
      let current = r.value;
      for (const map of maps) {
        const response = await evaluateMap(map, current, options);
        if (!response) continue;
        responses.push(response);
        if (isJsonObject(response.patched)) current = response.patched;
      }
      for (const mpol of mpols) {
        const response = await evaluateMutatingPolicy(mpol, current, options);
        responses.push(response);
        if (isJsonObject(response.patched)) current = response.patched;
      }
      responses.push(...(await evaluateResource(current, options)));
      byKey.set(r.key, responses);
    }
    runs.set(op, byKey);
  }
  for (const [key, responses] of runs.get('')!) {
    for (const r of responses) {
      const failed = r.rules.filter((x) => x.status === 'error');
      if (failed.length > 0 && r.rules.some((x) => x.status === 'applied')) {
        log.push(
          `  note: ${r.policy.name} on ${key.replace(/,/g, '/')}: rule ${failed.map((x) => x.rule).join(', ')} failed, so the webhook drops all of the policy's changes (Kyverno's CLI would keep the other rules' changes)`,
        );
      }
    }
  }
  const expectedCache = new Map<string, Promise<LoadedResource[]>>();
  const ctx: CheckContext = {
    responses: (op) => runs.get(op ?? '')!,
    expected: (path) => {
      const full = relativeTo(dir, path);
      let p = expectedCache.get(full);
      if (!p) {
        p = readInput(full, io).then((text) => resourcesOfText(text, full, loaded.documents));
        expectedCache.set(full, p);
      }
      return p;
    },
    invalidPolicies,
    otherRules,
    counts,
    nextId,
  };
  const rows: Row[] = [];
  for (const result of results) rows.push(...(await checkResult(result, ctx)));
  return { rows, log };
}
