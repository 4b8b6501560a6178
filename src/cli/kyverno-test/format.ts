/**
 * The Kyverno CLI's test file (`kyverno-test.yaml`): `cli.kyverno.io/v1alpha1` `Test`, and the older
 * kind-less form (`name`, `policies`, `resources`, `variables`, `results` with `resource`, `status`,
 * `patchedResource`). Read strictly, as the Kyverno CLI does (an unknown key is an error); fields that
 * need a cluster, a registry or an engine Amender does not have are refused by name rather than ignored.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { parseValuesSpec, type ValuesSpec } from './values.js';
import { foldKeyCase } from './go-keys.js';

export const TEST_API_VERSION = 'cli.kyverno.io/v1alpha1';
/** Kyverno's own tests still say `kyverno.io/v1`; its CLI accepts any apiVersion with kind Test. */
const TEST_API_VERSIONS = [TEST_API_VERSION, 'kyverno.io/v1'];

export type ExpectedResult = 'pass' | 'fail' | 'skip' | 'error' | 'warn';
const RESULTS: readonly ExpectedResult[] = ['pass', 'fail', 'skip', 'error', 'warn'];

export interface TestResult {
  policy: string;
  rule: string;
  /** `name` or `namespace/name`; empty = every resource of the test. */
  resources: string[];
  /**
   * Whether the result has a `resources` key (even `[]`): only then does Kyverno read its resourceSpecs
   * (commands/test/output.go printTestResult, `if test.Resources != nil`).
   */
  resourcesGiven: boolean;
  /** Resources by group/version, namespace and name (the kind is not compared, as in Kyverno). */
  resourceSpecs: ResourceSpec[];
  kind: string;
  result: ExpectedResult;
  patchedResources?: string;
  /** CREATE, UPDATE or DELETE: evaluated in a run of its own. */
  operation?: string;
  failOnMissingResources: boolean;
}

export interface ResourceSpec {
  group: string;
  version: string;
  namespace: string;
  name: string;
}

export interface KyvernoTest {
  name: string;
  /** Whether the file uses the older kind-less schema (the Kyverno CLI now refuses it; Amender reads it). */
  legacy: boolean;
  policies: string[];
  resources: string[];
  /** Params of MutatingAdmissionPolicies. */
  paramResources: string[];
  variables?: string;
  values?: ValuesSpec;
  userinfo?: string;
  results: TestResult[];
}

export class KyvernoTestFormatError extends Error {
  override name = 'KyvernoTestFormatError';
}

function fail(path: string, message: string): never {
  throw new KyvernoTestFormatError(`${path}: ${message}`);
}

const TEST_KEYS = ['apiVersion', 'kind', 'metadata', 'name', 'policies', 'resources', 'paramResources', 'variables', 'values', 'userinfo', 'results'];
/** Keys of the Test schema that need what Amender does not have; refused when not empty. */
const UNSUPPORTED_TEST_KEYS: Record<string, string> = {
  jsonPayload: 'JSON payloads are for validating policies',
  jsonPayloads: 'JSON payloads are for validating policies',
  httpPayloads: 'HTTP payloads are for authorization policies',
  envoyPayloads: 'Envoy payloads are for authorization policies',
  targetResources: 'mutate-existing targets are background work, not admission',
  exceptions: 'PolicyExceptions are not supported',
  context: 'CEL context files are for Kyverno CEL policies',
  clusterResources: 'cluster resources for apiCall are not supported (give the values instead)',
  apiCallResponses: 'apiCall mocks are not supported (give the values instead)',
  globalContextEntries: 'global context entries are not supported',
};
const RESULT_KEYS = [
  'policy', 'rule', 'resources', 'resource', 'namespace', 'kind', 'result', 'status', 'patchedResources', 'patchedResource',
  'operation', 'failOnMissingResources', 'isMutatingPolicy', 'isValidatingPolicy', 'isValidatingAdmissionPolicy',
  'isMutatingAdmissionPolicy', 'isDeletingPolicy', 'isImageValidatingPolicy', 'isGeneratingPolicy', 'resourceSpecs',
];
const UNSUPPORTED_RESULT_KEYS: Record<string, string> = {
  generatedResource: 'generate rules are not run by Amender (mutate only)',
  generatedResources: 'generate rules are not run by Amender (mutate only)',
  cloneSourceResource: 'generate rules are not run by Amender (mutate only)',
};

function isEmpty(v: JsonValue | undefined): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || (isJsonObject(v) && Object.keys(v).length === 0);
}

function checkKeys(obj: JsonObject, path: string, allowed: readonly string[], unsupported: Record<string, string>): void {
  for (const key of Object.keys(obj)) {
    if (allowed.includes(key)) continue;
    if (Object.prototype.hasOwnProperty.call(unsupported, key)) {
      if (!isEmpty(getOwn(obj, key))) fail(`${path}.${key}`, `not supported by Amender: ${unsupported[key]}`);
      continue;
    }
    fail(path, `unknown key ${JSON.stringify(key)}`);
  }
}

function stringList(obj: JsonObject, key: string, path: string): string[] {
  const v = getOwn(obj, key);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) fail(`${path}.${key}`, 'expected a list of strings');
  // The Kyverno CLI drops duplicate paths.
  return [...new Set(v as string[])];
}

function optionalString(obj: JsonObject, key: string, path: string): string | undefined {
  const v = getOwn(obj, key);
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') fail(`${path}.${key}`, 'expected a string');
  return v;
}

const SPEC_KEYS = ['group', 'version', 'kind', 'namespace', 'subresource', 'name'];

function readResourceSpecs(value: JsonObject, path: string): ResourceSpec[] {
  const v = getOwn(value, 'resourceSpecs');
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(`${path}.resourceSpecs`, 'expected a list');
  return v.map((raw, i) => {
    const at = `${path}.resourceSpecs[${i}]`;
    if (!isJsonObject(raw)) fail(at, 'expected an object');
    const spec = foldKeyCase(raw, SPEC_KEYS);
    checkKeys(spec, at, SPEC_KEYS, {});
    const str = (k: string) => optionalString(spec, k, at) ?? '';
    return { group: str('group'), version: str('version'), namespace: str('namespace'), name: str('name') };
  });
}

function readResult(raw: JsonValue, path: string): TestResult {
  if (!isJsonObject(raw)) fail(path, 'expected an object');
  const value = foldKeyCase(raw, RESULT_KEYS);
  checkKeys(value, path, RESULT_KEYS, UNSUPPORTED_RESULT_KEYS);
  const policy = optionalString(value, 'policy', path);
  if (policy === undefined) fail(`${path}.policy`, 'required');
  const result = optionalString(value, 'result', path) ?? optionalString(value, 'status', path);
  if (result === undefined) fail(`${path}.result`, 'required (pass, fail, skip, error or warn)');
  if (!RESULTS.includes(result as ExpectedResult)) fail(`${path}.result`, `expected one of ${RESULTS.join(', ')}, got ${JSON.stringify(result)}`);
  const resources = stringList(value, 'resources', path);
  const resourcesGiven = getOwn(value, 'resources') !== undefined && getOwn(value, 'resources') !== null;
  // Older files name one resource, with its namespace beside it.
  const single = optionalString(value, 'resource', path);
  if (single !== undefined) {
    const ns = optionalString(value, 'namespace', path);
    resources.push(ns !== undefined && !single.includes('/') ? `${ns}/${single}` : single);
  }
  const patchedResources = optionalString(value, 'patchedResources', path) ?? optionalString(value, 'patchedResource', path);
  const operation = optionalString(value, 'operation', path);
  if (operation !== undefined && !['CREATE', 'UPDATE', 'DELETE'].includes(operation)) {
    fail(`${path}.operation`, `expected CREATE, UPDATE or DELETE, got ${JSON.stringify(operation)}`);
  }
  const failOnMissing = getOwn(value, 'failOnMissingResources');
  if (failOnMissing !== undefined && typeof failOnMissing !== 'boolean') fail(`${path}.failOnMissingResources`, 'expected a boolean');
  return {
    policy,
    rule: optionalString(value, 'rule', path) ?? '',
    resources,
    resourcesGiven: resourcesGiven || single !== undefined,
    resourceSpecs: readResourceSpecs(value, path),
    kind: optionalString(value, 'kind', path) ?? '',
    result: result as ExpectedResult,
    ...(patchedResources !== undefined ? { patchedResources } : {}),
    ...(operation !== undefined ? { operation } : {}),
    failOnMissingResources: failOnMissing === true,
  };
}

/** True for a document that is a Kyverno CLI test (either schema), as opposed to an amender-test file. */
export function isKyvernoTestDocument(doc: JsonObject): boolean {
  const apiVersion = getOwn(doc, 'apiVersion');
  if (apiVersion !== undefined) return TEST_API_VERSIONS.includes(apiVersion as string) && getOwn(doc, 'kind') === 'Test';
  return getOwn(doc, 'results') !== undefined && getOwn(doc, 'cases') === undefined;
}

export function readKyvernoTest(doc: JsonObject): KyvernoTest {
  const apiVersion = getOwn(doc, 'apiVersion');
  const legacy = apiVersion === undefined;
  if (!legacy) {
    if (!TEST_API_VERSIONS.includes(apiVersion as string)) fail('apiVersion', `expected ${TEST_API_VERSION}, got ${JSON.stringify(apiVersion)}`);
    if (getOwn(doc, 'kind') !== 'Test') fail('kind', `expected Test, got ${JSON.stringify(getOwn(doc, 'kind'))}`);
  }
  checkKeys(doc, 'test', TEST_KEYS, UNSUPPORTED_TEST_KEYS);
  const metadata = getOwn(doc, 'metadata');
  const metaName = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
  const name = typeof metaName === 'string' ? metaName : (optionalString(doc, 'name', 'test') ?? '');
  const results = getOwn(doc, 'results');
  if (results !== undefined && results !== null && !Array.isArray(results)) fail('results', 'expected a list');
  const inlineValues = getOwn(doc, 'values');
  return {
    name,
    legacy,
    policies: stringList(doc, 'policies', 'test'),
    resources: stringList(doc, 'resources', 'test'),
    paramResources: stringList(doc, 'paramResources', 'test'),
    ...(optionalString(doc, 'variables', 'test') !== undefined ? { variables: optionalString(doc, 'variables', 'test') } : {}),
    ...(inlineValues !== undefined && inlineValues !== null ? { values: parseValuesSpec(inlineValues, 'values') } : {}),
    ...(optionalString(doc, 'userinfo', 'test') !== undefined ? { userinfo: optionalString(doc, 'userinfo', 'test') } : {}),
    results: ((results as JsonValue[] | undefined) ?? []).map((r, i) => readResult(r, `results[${i}]`)),
  };
}
