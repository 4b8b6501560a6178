/**
 * The golden-test file format of `amender test` (`amender-test.yaml`), read strictly: an unknown key, a
 * case without an expectation, or an expectation that cannot fail is an error, never a silent pass.
 *
 *   policies: [../../sidecar.yaml]      # files or folders, relative to this file
 *   cases:
 *     - name: injects the sidecar
 *       resource: pod.yaml              # a file relative to this file (or `object:` inline)
 *       operation: CREATE               # default CREATE; UPDATE needs oldResource/oldObject
 *       oldResource: old.yaml           # or oldObject: inline
 *       namespace: shop                 # default: the resource's metadata.namespace
 *       user: alice                     # request.userInfo.username
 *       groups: [developers]            # request.userInfo.groups
 *       expect:                         # exactly one of:
 *         object: pod.expected.yaml     #   the mutated resource (file or inline), compared exactly
 *         unchanged: true               #   the reply carries no patch
 *         denied: {message: "...", code: 403, reason: Invalid}   # message required, compared exactly
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../json/index.js';
import type { Operation } from '../admission/index.js';
import { OPERATIONS } from './resource-review.js';

export type Doc = { file: string } | { inline: JsonObject };

export type Expectation =
  | { kind: 'object'; object: Doc }
  | { kind: 'unchanged' }
  | { kind: 'denied'; message: string; code?: number; reason?: string };

export interface GoldenCase {
  name: string;
  resource: Doc;
  oldResource?: Doc;
  operation: Operation;
  namespace?: string;
  user?: string;
  groups?: string[];
  expect: Expectation;
}

export interface GoldenSuite {
  policies: string[];
  cases: GoldenCase[];
}

export class GoldenFormatError extends Error {
  override name = 'GoldenFormatError';
}

function fail(path: string, message: string): never {
  throw new GoldenFormatError(`${path}: ${message}`);
}

function onlyKeys(obj: JsonObject, path: string, allowed: readonly string[]): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) fail(path, `unknown key ${JSON.stringify(key)} (allowed: ${allowed.join(', ')})`);
  }
}

function str(obj: JsonObject, key: string, path: string, required: boolean): string | undefined {
  const v = getOwn(obj, key);
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || v === '') fail(`${path}.${key}`, 'expected a non-empty string');
  return v;
}

function doc(obj: JsonObject, fileKey: string, inlineKey: string, path: string, required: boolean): Doc | undefined {
  const file = getOwn(obj, fileKey);
  const inline = getOwn(obj, inlineKey);
  if (file !== undefined && inline !== undefined) fail(path, `give ${fileKey} or ${inlineKey}, not both`);
  if (file !== undefined) {
    if (typeof file !== 'string' || file === '') fail(`${path}.${fileKey}`, 'expected a file name');
    return { file };
  }
  if (inline !== undefined) {
    if (!isJsonObject(inline)) fail(`${path}.${inlineKey}`, 'expected an object');
    return { inline };
  }
  if (required) fail(path, `${fileKey} (a file) or ${inlineKey} (inline) is required`);
  return undefined;
}

function expectation(value: JsonValue | undefined, path: string): Expectation {
  if (!isJsonObject(value)) fail(path, 'expected an object with one of object, unchanged, denied');
  onlyKeys(value, path, ['object', 'unchanged', 'denied']);
  const keys = Object.keys(value);
  if (keys.length !== 1) fail(path, `give exactly one of object, unchanged, denied (got ${keys.length === 0 ? 'none' : keys.join(', ')})`);
  if (keys[0] === 'unchanged') {
    if (getOwn(value, 'unchanged') !== true) fail(`${path}.unchanged`, 'must be true (to expect a change, give `object`)');
    return { kind: 'unchanged' };
  }
  if (keys[0] === 'object') {
    const object = getOwn(value, 'object');
    if (typeof object === 'string' && object !== '') return { kind: 'object', object: { file: object } };
    if (isJsonObject(object)) return { kind: 'object', object: { inline: object } };
    fail(`${path}.object`, 'expected a file name or an inline object');
  }
  const denied = getOwn(value, 'denied');
  if (!isJsonObject(denied)) fail(`${path}.denied`, 'expected an object with message (and optionally code, reason)');
  onlyKeys(denied, `${path}.denied`, ['message', 'code', 'reason']);
  const code = getOwn(denied, 'code');
  if (code !== undefined && (typeof code !== 'number' || !Number.isInteger(code))) fail(`${path}.denied.code`, 'expected an integer');
  return {
    kind: 'denied',
    message: str(denied, 'message', `${path}.denied`, true)!,
    ...(code !== undefined ? { code: code as number } : {}),
    ...(getOwn(denied, 'reason') !== undefined ? { reason: str(denied, 'reason', `${path}.denied`, true) } : {}),
  };
}

export function readGoldenSuite(value: JsonObject): GoldenSuite {
  onlyKeys(value, 'test file', ['policies', 'cases']);
  const policies = getOwn(value, 'policies');
  const policyList = typeof policies === 'string' ? [policies] : policies;
  if (!Array.isArray(policyList) || policyList.length === 0 || !policyList.every((p) => typeof p === 'string' && p !== '')) {
    fail('policies', 'expected a path or a non-empty list of paths (files or folders)');
  }
  const cases = getOwn(value, 'cases');
  if (!Array.isArray(cases) || cases.length === 0) fail('cases', 'expected a non-empty list of cases');
  const names = new Set<string>();
  return {
    policies: policyList as string[],
    cases: cases.map((c, i) => {
      const path = `cases[${i}]`;
      if (!isJsonObject(c)) fail(path, 'expected an object');
      onlyKeys(c, path, ['name', 'resource', 'object', 'oldResource', 'oldObject', 'operation', 'namespace', 'user', 'groups', 'expect']);
      const name = str(c, 'name', path, true)!;
      if (names.has(name)) fail(`${path}.name`, `duplicate case name ${JSON.stringify(name)}`);
      names.add(name);
      const operation = (str(c, 'operation', path, false) ?? 'CREATE') as Operation;
      if (!OPERATIONS.includes(operation)) fail(`${path}.operation`, `expected one of ${OPERATIONS.join(', ')}`);
      const oldResource = doc(c, 'oldResource', 'oldObject', path, operation === 'UPDATE');
      const groups = getOwn(c, 'groups');
      if (groups !== undefined && (!Array.isArray(groups) || !groups.every((g) => typeof g === 'string'))) {
        fail(`${path}.groups`, 'expected a list of strings');
      }
      return {
        name,
        resource: doc(c, 'resource', 'object', path, true)!,
        ...(oldResource ? { oldResource } : {}),
        operation,
        ...(getOwn(c, 'namespace') !== undefined ? { namespace: str(c, 'namespace', path, true) } : {}),
        ...(getOwn(c, 'user') !== undefined ? { user: str(c, 'user', path, true) } : {}),
        ...(groups !== undefined ? { groups: groups as string[] } : {}),
        expect: expectation(getOwn(c, 'expect'), `${path}.expect`),
      };
    }),
  };
}
