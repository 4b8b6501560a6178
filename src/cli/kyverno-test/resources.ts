/**
 * Resources as the Kyverno CLI loads them (resource/resource.go): every document of every file (YAML
 * streams, JSON, `kind: List` flattened; a folder gives its YAML/JSON files; `-` is standard input),
 * `metadata.namespace: default` added to objects of namespaced kinds (unknown kinds count as
 * namespaced, as there), null `labels`/`annotations`-like maps made empty.
 */
import { posix } from 'node:path';
import { cloneJsonWithMarks, getOwn, isJsonObject, setOwn, type JsonObject } from '../../json/index.js';
import { builtinScope } from '../../map/index.js';
import { parseDocuments, type SourceDocument } from '../../policyset/index.js';
import { parseApiVersion } from '../../schema/index.js';
import { readInput } from '../documents.js';
import { CliInputError } from '../errors.js';
import type { CliIO } from '../io.js';

export interface LoadedResource {
  value: JsonObject;
  /** `apiVersion,kind,namespace,name`: the Kyverno CLI's key for a resource. */
  key: string;
  source: string;
  /** Where it is, as `amender validate` names a document: `file`, `file#1` (the second document), `… item 2` (of a List). */
  where: string;
}

const RESOURCE_FILE = /\.(ya?ml|json)$/;
const NIL_MAP_FIELDS = new Set(['annotations', 'labels', 'matchLabels', 'nodeSelector', 'data', 'stringData']);

function meta(obj: JsonObject): JsonObject | undefined {
  const m = getOwn(obj, 'metadata');
  return isJsonObject(m) ? m : undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function resourceKey(obj: JsonObject): string {
  const m = meta(obj);
  return [str(getOwn(obj, 'apiVersion')), str(getOwn(obj, 'kind')), str(m && getOwn(m, 'namespace')), str(m && getOwn(m, 'name'))].join(',');
}

/** Cluster-scoped kinds: the built-in table, plus CRDs among `documents` that say `scope: Cluster`. */
export function isClusterScoped(apiVersion: string, kind: string, documents: readonly JsonObject[]): boolean {
  const { group } = parseApiVersion(apiVersion);
  const builtin = builtinScope(group, kind);
  if (builtin !== undefined) return builtin === 'Cluster';
  for (const doc of documents) {
    if (getOwn(doc, 'kind') !== 'CustomResourceDefinition') continue;
    const spec = getOwn(doc, 'spec');
    const names = isJsonObject(spec) ? getOwn(spec, 'names') : undefined;
    if (isJsonObject(spec) && getOwn(spec, 'group') === group && isJsonObject(names) && getOwn(names, 'kind') === kind) return getOwn(spec, 'scope') === 'Cluster';
  }
  return false;
}

function normalizeNilMaps(obj: JsonObject): void {
  for (const key of Object.keys(obj)) {
    const v = getOwn(obj, key);
    if (v === null && NIL_MAP_FIELDS.has(key)) setOwn(obj, key, {});
    else if (isJsonObject(v)) normalizeNilMaps(v);
    else if (Array.isArray(v)) for (const item of v) if (isJsonObject(item)) normalizeNilMaps(item);
  }
}

/** A copy of `obj` as the Kyverno CLI sees it once loaded (its numbers as written: `1.0`, every digit of an int64). */
export function normalizeResource(obj: JsonObject, documents: readonly JsonObject[]): JsonObject {
  const copy = cloneJsonWithMarks(obj);
  const apiVersion = str(getOwn(copy, 'apiVersion'));
  const kind = str(getOwn(copy, 'kind'));
  const m = meta(copy);
  const ns = m && getOwn(m, 'namespace');
  // A namespace of another type than string is kept for amender apply to refuse (object-meta.ts).
  if (m && (ns === undefined || ns === null || ns === '') && !isClusterScoped(apiVersion, kind, documents)) setOwn(m, 'namespace', 'default');
  // Metadata that is there but no object is kept, as Kyverno's SetNamespace leaves it (and apply refuses it).
  else if ((getOwn(copy, 'metadata') ?? null) === null && kind !== '' && !isClusterScoped(apiVersion, kind, documents)) setOwn(copy, 'metadata', { namespace: 'default' });
  normalizeNilMaps(copy);
  return copy;
}

const JSON_ARRAY_TEXT = /^\uFEFF?\s*\[/;

/**
 * The documents of a resource file. A policy source may be a JSON array of objects, but a resource file may
 * not: the Kyverno CLI decodes each document as one object (resource/resource.go YamlToUnstructured, with
 * apimachinery's decoder, which fails on an array: serializer/json/meta.go Interpret "couldn't get
 * version/kind"), so kyverno apply and kyverno test refuse it, and so does kubectl.
 */
export function resourceDocuments(source: string, text: string): SourceDocument[] {
  const parsed = parseDocuments(source, text);
  const problem = parsed.problems[0];
  // A document after the first is named as `amender validate` names it (`file#1` is the second).
  if (problem) throw new CliInputError(`${source}${problem.index > 0 ? `#${problem.index}` : ''}: ${problem.message}`);
  if (JSON_ARRAY_TEXT.test(text)) {
    throw new CliInputError(`${source}: a JSON array is not read as resources (kyverno and kubectl refuse it too): give one JSON object, YAML documents separated by ---, or a List (kind: List, items: [...])`);
  }
  return parsed.documents;
}

/** Every document of a file's text, normalized. */
export function resourcesOfText(text: string, source: string, documents: readonly JsonObject[]): LoadedResource[] {
  return resourceDocuments(source, text).map((d) => {
    const value = normalizeResource(d.value, documents);
    const where = `${source}${d.index > 0 ? `#${d.index}` : ''}${d.item !== undefined ? ` item ${d.item}` : ''}`;
    return { value, key: resourceKey(value), source, where };
  });
}

/** The files of a path: itself (named by the user), or a folder's YAML/JSON files (found there). */
async function filesOf(path: string, io: CliIO): Promise<{ file: string; found: boolean }[]> {
  if (path === '-') return [{ file: path, found: false }];
  const entries = io.listDir ? await io.listDir(path) : undefined;
  if (entries === undefined) return [{ file: path, found: false }];
  return [...entries].sort().filter((n) => RESOURCE_FILE.test(n)).map((n) => ({ file: posix.join(path, n), found: true }));
}

/** The resources of files, folders (their YAML/JSON files) and `-`, in order. */
export async function loadResources(paths: readonly string[], io: CliIO, documents: readonly JsonObject[]): Promise<LoadedResource[]> {
  const out: LoadedResource[] = [];
  for (const path of paths) {
    for (const { file, found } of await filesOf(path, io)) {
      out.push(...resourcesOfText(await readInput(file, io, { found }), file === '-' ? 'standard input' : file, documents));
    }
  }
  return out;
}

/**
 * The first of resources with the same API group, kind, namespace and name, and each such identity seen more
 * than once, as the Kyverno CLI names it in its warning (`Kind name namespace`). Kyverno keys resources by
 * GroupKind, not version (resource/duplicate.go RemoveDuplicates), so apps/v1 and apps/v1beta1 Deployments
 * of one name are one resource.
 */
export function removeDuplicates(resources: readonly LoadedResource[]): { uniques: LoadedResource[]; duplicates: string[] } {
  const seen = new Set<string>();
  const duplicated = new Map<string, string>();
  const uniques: LoadedResource[] = [];
  for (const r of resources) {
    const [apiVersion, kind, namespace, name] = r.key.split(',');
    const identity = [parseApiVersion(apiVersion).group, kind, namespace, name].join(',');
    if (!seen.has(identity)) {
      seen.add(identity);
      uniques.push(r);
    } else if (!duplicated.has(identity)) duplicated.set(identity, `${kind} ${name} ${namespace}`);
  }
  return { uniques, duplicates: [...duplicated.values()] };
}
