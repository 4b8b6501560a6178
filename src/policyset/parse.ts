/**
 * Turns one source's text (a YAML multi-document stream, a JSON object, or a JSON array of objects)
 * into documents. `List` kinds are flattened into their items. Numbers keep the int/double distinction
 * of the text (`1.0` stays a double for CEL), as `parseJson` does for JSON.
 */
import { isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node as YamlNode } from 'yaml';
import { getOwn, isJsonObject, markFloatLiteral, parseJson, type JsonObject, type JsonValue } from '../json/index.js';
import type { ParsedSource, Problem } from './types.js';

const MAX_DEPTH = 1000;
const MAX_ALIASES = 100;

class DocumentError extends Error {}

/** Checks that a value is JSON (finite numbers, bounded depth); YAML can hold things JSON cannot. */
function checkJson(value: unknown, depth: number): void {
  if (depth > MAX_DEPTH) throw new DocumentError(`document nesting deeper than ${MAX_DEPTH} levels`);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new DocumentError(`${value} cannot be represented in JSON`);
  } else if (Array.isArray(value)) {
    for (const v of value) checkJson(v, depth + 1);
  } else if (typeof value === 'object' && value !== null) {
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
      throw new DocumentError('document holds a value that is not JSON');
    }
    for (const k of Object.keys(value)) checkJson((value as Record<string, unknown>)[k], depth + 1);
  } else if (value === undefined || typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function') {
    throw new DocumentError('document holds a value that is not JSON');
  }
}

function looksLikeFloat(source: string | undefined): boolean {
  return source !== undefined && /[.eE]/.test(source) && !/^0x/i.test(source);
}

/** Marks integral float literals (`1.0`, `1e3`) on the JS containers built from the YAML nodes. */
function markFloats(node: YamlNode | null | undefined, value: JsonValue, depth: number): void {
  if (!node || depth > MAX_DEPTH || typeof value !== 'object' || value === null) return;
  if (isMap(node) && isJsonObject(value)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key === undefined || key === '<<' || !Object.prototype.hasOwnProperty.call(value, key)) continue;
      const child = pair.value as YamlNode | null;
      const v = value[key];
      if (isScalar(child) && typeof v === 'number' && Number.isInteger(v) && looksLikeFloat(child.source)) markFloatLiteral(value, key);
      else markFloats(child, v, depth + 1);
    }
  } else if (isSeq(node) && Array.isArray(value)) {
    node.items.forEach((item, i) => {
      const child = item as YamlNode | null;
      const v = value[i];
      if (isScalar(child) && typeof v === 'number' && Number.isInteger(v) && looksLikeFloat(child.source)) markFloatLiteral(value, i);
      else markFloats(child, v, depth + 1);
    });
  }
}

function yamlDocumentValue(doc: Document.Parsed): JsonValue | undefined {
  if (doc.contents === null) return undefined;
  const value = doc.toJS({ maxAliasCount: MAX_ALIASES }) as unknown;
  checkJson(value, 0);
  markFloats(doc.contents as YamlNode, value as JsonValue, 0);
  return value as JsonValue;
}

function isList(value: JsonObject): boolean {
  const kind = getOwn(value, 'kind');
  return typeof kind === 'string' && kind.endsWith('List') && Array.isArray(getOwn(value, 'items'));
}

function addDocument(out: ParsedSource, index: number, value: JsonValue | undefined): void {
  if (value === undefined || value === null) return; // an empty document
  const problem = (message: string, item?: number): Problem => ({ source: out.source, index, ...(item !== undefined ? { item } : {}), path: '', message, effect: 'ignored' });
  if (!isJsonObject(value)) {
    out.problems.push(problem('document is not an object'));
    return;
  }
  if (isList(value)) {
    (getOwn(value, 'items') as JsonValue[]).forEach((item, i) => {
      if (!isJsonObject(item)) out.problems.push(problem('list item is not an object', i));
      else out.documents.push({ source: out.source, index, item: i, value: item });
    });
    return;
  }
  out.documents.push({ source: out.source, index, value });
}

function isJsonText(text: string): boolean {
  const m = /^\s*(\S)/.exec(text);
  return m !== null && (m[1] === '{' || m[1] === '[');
}

export function parseDocuments(source: string, text: string): ParsedSource {
  const out: ParsedSource = { source, documents: [], problems: [] };
  if (isJsonText(text)) {
    let value: JsonValue;
    try {
      value = parseJson(text);
    } catch (err) {
      out.problems.push({ source, index: 0, path: '', message: `invalid JSON: ${(err as Error).message}`, effect: 'ignored' });
      return out;
    }
    if (Array.isArray(value)) value.forEach((v, i) => addDocument(out, i, v));
    else addDocument(out, 0, value);
    return out;
  }
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true }) as Document.Parsed[];
  } catch (err) {
    out.problems.push({ source, index: 0, path: '', message: `invalid YAML: ${(err as Error).message}`, effect: 'ignored' });
    return out;
  }
  if (!Array.isArray(docs)) docs = [docs as Document.Parsed];
  docs.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      out.problems.push({ source, index, path: '', message: `invalid YAML: ${doc.errors[0].message}`, effect: 'ignored' });
      return;
    }
    try {
      addDocument(out, index, yamlDocumentValue(doc));
    } catch (err) {
      out.problems.push({ source, index, path: '', message: `invalid YAML: ${(err as Error).message}`, effect: 'ignored' });
    }
  });
  return out;
}
