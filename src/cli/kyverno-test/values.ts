/**
 * The Kyverno CLI's values (`cli.kyverno.io/v1alpha1` `Values`, a test's `variables` file or inline
 * `values`, `kyverno apply --values-file`): context values for every policy (`globalValues`), for one
 * policy and resource (`policies[].resources[].values`), for one rule (`policies[].rules[].values`,
 * which also stand in for the rule's configMap/apiCall/imageRegistry entries), namespace labels
 * (`namespaceSelector`, `namespaces`, the latter taking precedence) and subresource mappings.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { foldKeyCase } from './go-keys.js';

export const VALUES_API_VERSION = 'cli.kyverno.io/v1alpha1';

export interface Subresource {
  /** The subresource's own group/version/kind and `parent/sub` name (e.g. `deployments/scale`). */
  subresource: { group: string; version: string; kind: string; name: string };
  parentResource: { group: string; version: string; kind: string; name: string };
}

export interface ValuesSpec {
  globalValues: Record<string, JsonValue>;
  policies: { name: string; resources: { name: string; values: Record<string, JsonValue> }[]; rules: { name: string; values: Record<string, JsonValue> }[] }[];
  /** Namespace name → labels. */
  namespaceLabels: Map<string, Record<string, string>>;
  subresources: Subresource[];
}

export class ValuesFormatError extends Error {
  override name = 'ValuesFormatError';
}

function fail(path: string, message: string): never {
  throw new ValuesFormatError(`${path}: ${message}`);
}

/** `obj` with its keys as Go's decoder matches them (case-insensitively), refusing one it has no field for (UnmarshalStrict). */
function onlyKeys(obj: JsonObject, path: string, allowed: readonly string[]): JsonObject {
  const folded = foldKeyCase(obj, allowed);
  for (const key of Object.keys(folded)) if (!allowed.includes(key)) fail(path, `unknown key ${JSON.stringify(key)} (allowed: ${allowed.join(', ')})`);
  return folded;
}

function list(obj: JsonObject, key: string, path: string): JsonValue[] {
  const v = getOwn(obj, key);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(`${path}.${key}`, 'expected a list');
  return v;
}

function valueMap(v: JsonValue | undefined, path: string): Record<string, JsonValue> {
  if (v === undefined || v === null) return {};
  if (!isJsonObject(v)) fail(path, 'expected a map of dotted names to values');
  return { ...v };
}

function name(obj: JsonObject, path: string): string {
  const n = getOwn(obj, 'name');
  if (typeof n !== 'string' || n === '') fail(`${path}.name`, 'expected a non-empty string');
  return n;
}

function labels(v: JsonValue | undefined, path: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isJsonObject(v) || !Object.values(v).every((x) => typeof x === 'string')) fail(path, 'expected a map of strings');
  return { ...(v as Record<string, string>) };
}

function apiResource(raw: JsonValue | undefined, path: string): Subresource['subresource'] {
  if (!isJsonObject(raw)) fail(path, 'expected an APIResource (name, group, version, kind)');
  const v = foldKeyCase(raw, ['name', 'group', 'version', 'kind']);
  const str = (k: string) => {
    const s = getOwn(v, k);
    if (s !== undefined && typeof s !== 'string') fail(`${path}.${k}`, 'expected a string');
    return (s as string | undefined) ?? '';
  };
  return { name: str('name'), group: str('group'), version: str('version'), kind: str('kind') };
}

/** The spec part of a Values document (also a test's inline `values`). */
export function parseValuesSpec(raw: JsonValue, path: string): ValuesSpec {
  if (!isJsonObject(raw)) fail(path, 'expected an object');
  const value = onlyKeys(raw, path, ['apiVersion', 'kind', 'metadata', 'globalValues', 'policies', 'namespaceSelector', 'namespaces', 'subresources']);
  const namespaceLabels = new Map<string, Record<string, string>>();
  list(value, 'namespaceSelector', path).forEach((raw, i) => {
    const at = `${path}.namespaceSelector[${i}]`;
    if (!isJsonObject(raw)) fail(at, 'expected an object with name and labels');
    const n = onlyKeys(raw, at, ['name', 'labels']);
    namespaceLabels.set(name(n, at), labels(getOwn(n, 'labels'), `${at}.labels`));
  });
  // Namespace objects take precedence over namespaceSelector entries.
  list(value, 'namespaces', path).forEach((n, i) => {
    const at = `${path}.namespaces[${i}]`;
    const rawMeta = isJsonObject(n) ? getOwn(foldKeyCase(n, ['metadata']), 'metadata') : undefined;
    if (!isJsonObject(rawMeta)) fail(at, 'expected a Namespace object with metadata.name');
    const meta = foldKeyCase(rawMeta, ['name', 'labels']);
    namespaceLabels.set(name(meta, `${at}.metadata`), labels(getOwn(meta, 'labels'), `${at}.metadata.labels`));
  });
  return {
    globalValues: valueMap(getOwn(value, 'globalValues'), `${path}.globalValues`),
    policies: list(value, 'policies', path).map((raw, i) => {
      const at = `${path}.policies[${i}]`;
      if (!isJsonObject(raw)) fail(at, 'expected an object');
      const p = onlyKeys(raw, at, ['name', 'resources', 'rules']);
      return {
        name: name(p, at),
        resources: list(p, 'resources', at).map((raw, j) => {
          const rat = `${at}.resources[${j}]`;
          if (!isJsonObject(raw)) fail(rat, 'expected an object');
          const r = onlyKeys(raw, rat, ['name', 'values']);
          return { name: name(r, rat), values: valueMap(getOwn(r, 'values'), `${rat}.values`) };
        }),
        rules: list(p, 'rules', at).map((raw, j) => {
          const rat = `${at}.rules[${j}]`;
          if (!isJsonObject(raw)) fail(rat, 'expected an object');
          if (getOwn(foldKeyCase(raw, ['foreachValues']), 'foreachValues') !== undefined) fail(`${rat}.foreachValues`, 'not supported by Amender; give the value in `values`');
          const r = onlyKeys(raw, rat, ['name', 'values']);
          return { name: name(r, rat), values: valueMap(getOwn(r, 'values'), `${rat}.values`) };
        }),
      };
    }),
    namespaceLabels,
    subresources: list(value, 'subresources', path).map((raw, i) => {
      const at = `${path}.subresources[${i}]`;
      if (!isJsonObject(raw)) fail(at, 'expected an object with subresource and parentResource');
      const s = onlyKeys(raw, at, ['subresource', 'parentResource']);
      return { subresource: apiResource(getOwn(s, 'subresource'), `${at}.subresource`), parentResource: apiResource(getOwn(s, 'parentResource'), `${at}.parentResource`) };
    }),
  };
}

/** A values file: `Values` of cli.kyverno.io/v1alpha1, or the older kind-less form. */
export function readValuesDocument(raw: JsonObject): ValuesSpec {
  const doc = foldKeyCase(raw, ['apiVersion', 'kind']);
  const apiVersion = getOwn(doc, 'apiVersion');
  if (apiVersion !== undefined && apiVersion !== VALUES_API_VERSION) fail('apiVersion', `expected ${VALUES_API_VERSION}, got ${JSON.stringify(apiVersion)}`);
  // Kyverno only asks for a kind (its own tests say `Value`).
  if (apiVersion !== undefined && (typeof getOwn(doc, 'kind') !== 'string' || getOwn(doc, 'kind') === '')) fail('kind', 'expected Values');
  return parseValuesSpec(doc, 'values');
}

export const EMPTY_VALUES: ValuesSpec = { globalValues: {}, policies: [], namespaceLabels: new Map(), subresources: [] };

/**
 * The context values of one policy on one resource: globalValues, then the policy's values for that
 * resource, then `--set` pairs; `request.operation` defaults to CREATE (the Kyverno CLI's order).
 */
export function valuesFor(spec: ValuesSpec, policy: string, resource: string, set: Readonly<Record<string, JsonValue>> = {}): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = { ...spec.globalValues };
  for (const p of spec.policies) {
    if (p.name !== policy) continue;
    for (const r of p.resources) if (r.name === resource) Object.assign(out, r.values);
  }
  Object.assign(out, set);
  if (!Object.prototype.hasOwnProperty.call(out, 'request.operation')) out['request.operation'] = 'CREATE';
  return out;
}

/** The values of one rule (merged over every policy entry of that name). */
export function ruleValuesFor(spec: ValuesSpec, policy: string, rule: string): Record<string, JsonValue> | undefined {
  let out: Record<string, JsonValue> | undefined;
  for (const p of spec.policies) {
    if (p.name !== policy) continue;
    for (const r of p.rules) if (r.name === rule && Object.keys(r.values).length > 0) out = { ...(out ?? {}), ...r.values };
  }
  return out;
}

/**
 * `--set` items (`a=b`, each a field of the flag's comma-separated values: kyverno-flags.ts setItems) as
 * the Kyverno CLI reads them (variables/parse.go): trimmed, `key=value` with neither empty, keys naming
 * `request.object.` refused, the first of duplicates kept. Values stay strings.
 */
export function parseSetPairs(items: readonly string[]): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const item of items) {
    const text = item.trim();
    if (text === '') continue;
    const parts = text.split('=');
    if (parts.length !== 2 || parts[0].trim() === '' || parts[1].trim() === '') throw new ValuesFormatError(`--set ${JSON.stringify(text)}: expected key=value`);
    const key = parts[0].trim();
    if (key.includes('request.object.')) throw new ValuesFormatError(`--set ${JSON.stringify(text)}: the resource's own fields cannot be set`);
    if (!Object.prototype.hasOwnProperty.call(out, key)) out[key] = parts[1].trim();
  }
  return out;
}
