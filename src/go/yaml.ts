/**
 * YAML → JSON as Kyverno's `sigs.k8s.io/yaml` YAMLToJSON does it (go-yaml v2, YAML 1.1), for
 * `patchesJson6902` text and `parse_yaml`: `yes`/`no`/`on`/`off`/`y`/`n` are booleans, `0755` is
 * octal, `<<` merges, map keys become strings (`on:` is `"true"`), a repeated key overrides the earlier
 * one. go-yaml v2 knows neither timestamps, base-60 numbers (`1:30`), `!!set` nor `!!omap`: the first
 * two stay strings, the others plain mappings and sequences. `!!binary` becomes the decoded bytes as
 * text, `.inf`/`.nan` are errors (encoding/json cannot write them), and a clipped block scalar that
 * ends the text keeps no line break it does not have.
 */
import { isScalar, parseDocument, visit, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions, type Tags } from 'yaml';
import { setOwn, type JsonObject, type JsonValue } from '../json/index.js';

const GO_YAML_V2_UNKNOWN = new Set(['tag:yaml.org,2002:timestamp', 'tag:yaml.org,2002:set', 'tag:yaml.org,2002:omap', 'tag:yaml.org,2002:pairs']);

const OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  merge: true,
  // sigs.k8s.io/yaml's non-strict YAMLToJSON lets a repeated key win over the earlier one.
  uniqueKeys: false,
  customTags: (tags: Tags) =>
    tags.filter((t) => {
      const { tag, format } = t as { tag?: string; format?: string };
      return !GO_YAML_V2_UNKNOWN.has(tag ?? '') && format !== 'TIME';
    }),
};
/** The `yaml` package's guard against alias bombs; go-yaml v2 tolerates documents that are mostly aliases. */
const MAX_ALIAS_COUNT = 1000;

export class YamlError extends Error {
  override name = 'YamlError';
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** The JSON value of a one-document YAML text (`null` for an empty one). Throws YamlError. */
export function parseYaml11(text: string): JsonValue {
  return yaml11Json(parseYaml11Document(text), text);
}

/** The parsed document of a YAML 1.1 text, as go-yaml v2 reads it; errors are in `doc.errors`. */
export function parseYaml11Document(text: string): Document.Parsed {
  return parseDocument(text, OPTIONS);
}

/** The JSON value of a document {@link parseYaml11Document} parsed from `text`. Throws YamlError. */
export function yaml11Json(doc: Document.Parsed, text: string): JsonValue {
  if (doc.errors.length > 0) throw new YamlError(doc.errors[0].message);
  if (!text.endsWith('\n')) {
    // A clipped block scalar that runs to the end of the text has no line break to keep; the yaml
    // package still adds one, go-yaml does not.
    visit(doc, {
      Scalar(_key, node) {
        if (!isScalar(node) || (node.type !== 'BLOCK_FOLDED' && node.type !== 'BLOCK_LITERAL')) return;
        const [start, , end] = node.range ?? [0, 0, 0];
        const header = text.slice(start, text.indexOf('\n', start) >>> 0);
        if (end >= text.length && !header.includes('+') && typeof node.value === 'string' && node.value.endsWith('\n')) {
          node.value = node.value.slice(0, -1);
        }
      },
    });
  }
  return toJson(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
}

function toJson(value: unknown): JsonValue {
  if (value === undefined || value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new YamlError(`json: unsupported value: ${value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN'}`);
      return value;
    case 'bigint':
      return Number(value);
  }
  if (Array.isArray(value)) return value.map(toJson);
  // go-yaml hands !!binary over as a Go string of the bytes; encoding/json writes it as UTF-8 text.
  if (value instanceof Uint8Array) return utf8.decode(value);
  if (typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, toJson(v));
    return out;
  }
  throw new YamlError(`unsupported YAML value of type ${typeof value}`);
}
