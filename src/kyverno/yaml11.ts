/**
 * YAML → JSON as Kyverno's `sigs.k8s.io/yaml` does it for `patchesJson6902` text: YAML 1.1 scalars
 * (`yes`/`no`/`on`/`off`/`y`/`n` are booleans, `0755` is octal, `<<` merges), map keys turned into
 * strings (`on:` becomes `"true"`), and timestamp-looking scalars kept as the text they are (go-yaml v2
 * decodes them into `interface{}` as strings). Sexagesimal numbers (`1:30`) are strings too; a repeated
 * key overrides the earlier one.
 */
import { parseDocument, type ParseOptions, type DocumentOptions, type SchemaOptions } from 'yaml';
import type { JsonValue } from '../json/index.js';

type Tag = { tag: string; format?: string };

const OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  merge: true,
  // sigs.k8s.io/yaml's non-strict YAMLToJSON lets a repeated key win over the earlier one.
  uniqueKeys: false,
  customTags: (tags) =>
    (tags as Tag[]).filter((t) => t.tag !== 'tag:yaml.org,2002:timestamp' && t.format !== 'TIME') as never,
};

export class YamlError extends Error {
  override name = 'YamlError';
}

export function parseYaml11(text: string): JsonValue {
  const doc = parseDocument(text, OPTIONS);
  if (doc.errors.length > 0) throw new YamlError(doc.errors[0].message);
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  return toJson(value === undefined ? null : value);
}

/** Rejects what JSON cannot carry (NaN, ±Inf, binary) with a clear message. */
function toJson(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new YamlError(`${value} cannot be represented in JSON`);
    return value;
  }
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Map) {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of value) define(out, String(k), toJson(v));
    return out;
  }
  if (value instanceof Uint8Array) return binaryToString(value);
  if (value instanceof Set) return [...value].map(toJson);
  if (typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) define(out, k, toJson(v));
    return out;
  }
  throw new YamlError(`unsupported YAML value of type ${typeof value}`);
}

function define(out: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `!!binary` decodes to bytes; go-yaml hands them over as a string. */
function binaryToString(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}
