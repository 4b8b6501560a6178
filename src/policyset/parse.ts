/**
 * Turns one source's text (a YAML multi-document stream, a JSON object, or a JSON array of objects)
 * into documents. `List` kinds are flattened into their items. Numbers keep the int/double distinction
 * of the text (`1.0` stays a double for CEL) and every digit of an int64 past ±2^53, as `parseJson` does
 * for JSON.
 *
 * YAML is read as kubectl and the Kyverno CLI read a manifest (sigs.k8s.io/yaml, i.e. go-yaml v2 and
 * YAML 1.1; src/go/yaml.ts): `0400` is octal, `yes`/`no`/`on`/`off`/`y`/`n` are booleans, `<<` merges.
 * A key written twice in one mapping is refused, as kubectl's default `--validate=strict` refuses a
 * duplicate field.
 */
import type { Document, DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';
import { locateFirstProblems, withoutQuotedLine, yaml11Json, yamlDocumentReader, yamlErrorLocation, YamlError } from '../go/index.js';
import { getOwn, isJsonObject, parseJson, type JsonObject, type JsonValue } from '../json/index.js';
import type { ParsedSource, Problem } from './types.js';

/** V8's JSON.parse error quoting the text (`Unexpected token 'h', "hunter2"... is not valid JSON`). */
const QUOTED_JSON = /, ".*" is not valid JSON/gs;

/**
 * A problem as /readyz shows it, which any caller may read (a Function URL without auth, a probe port):
 * where it is (line and column) but not the text there. A broken param ConfigMap's line may hold a
 * credential; the log, which the operator alone reads, keeps it.
 */
export function withoutQuotedSource(problem: Problem): Problem {
  const message = withoutQuotedLine(problem.message).replace(QUOTED_JSON, ': not valid JSON');
  return message === problem.message ? problem : { ...problem, message };
}

/**
 * The `yaml` package only parses here (syntax, documents, anchors, ranges): the failsafe schema leaves
 * every scalar a string, and yaml11Json resolves values and repeated keys as go-yaml v2 does. Explicit
 * tags (`!!int`) are the `yaml` package's warnings, not errors.
 */
const STREAM_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = { version: '1.1', schema: 'failsafe', uniqueKeys: false, prettyErrors: true };

function yamlDocumentValue(doc: Document.Parsed, text: string): JsonValue | undefined {
  if (doc.contents === null) return undefined;
  return yaml11Json(doc, text, { uniqueKeys: true, markNumbers: true });
}

/**
 * A List kind's objects: its `items`, and none when `items` is null (`items:` left empty, `items: ~`):
 * kubectl's decoder (apimachinery's unstructured scheme) takes any `items` key as a list and a null one as
 * an empty list. Undefined when `value` is no List (or a broken one: listProblem).
 */
function listItems(value: JsonObject): JsonValue[] | undefined {
  const kind = getOwn(value, 'kind');
  if (typeof kind !== 'string' || !kind.endsWith('List')) return undefined;
  const items = getOwn(value, 'items');
  return Array.isArray(items) ? items : items === null ? [] : undefined;
}

function shapeOf(value: JsonValue): string {
  if (isJsonObject(value)) return 'a mapping';
  return typeof value === 'string' ? 'a string' : typeof value === 'number' ? 'a number' : typeof value === 'boolean' ? 'a boolean' : 'null';
}

/**
 * What is wrong with a List kind that is not one, else undefined: kubectl refuses `items` that is not a
 * sequence (it cannot be decoded as a list), and a `kind: List` without items is no object either. Taken
 * as one object instead, it would be reviewed (or served as a param) as a resource of kind List. (Null
 * items are an empty list: listItems.)
 */
function listProblem(value: JsonObject): string | undefined {
  const kind = getOwn(value, 'kind');
  if (typeof kind !== 'string' || !kind.endsWith('List')) return undefined;
  const items = getOwn(value, 'items');
  if (Array.isArray(items) || items === null) return undefined;
  if (items !== undefined) return `a ${kind} whose items is ${shapeOf(items)}, not a list: its objects go in items as a sequence (items: [...])`;
  return kind === 'List' ? 'a List without items: its objects go in items as a sequence (items: [...])' : undefined;
}

function addDocument(out: ParsedSource, index: number, value: JsonValue | undefined): void {
  if (value === undefined || value === null) return; // an empty document
  const problem = (message: string, item?: number): Problem => ({ source: out.source, index, ...(item !== undefined ? { item } : {}), path: '', message, effect: 'ignored' });
  if (!isJsonObject(value)) {
    out.problems.push(problem('document is not an object'));
    return;
  }
  const notAList = listProblem(value);
  if (notAList !== undefined) {
    out.problems.push(problem(notAList));
    return;
  }
  const items = listItems(value);
  if (items !== undefined) {
    items.forEach((item, i) => {
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

/** A source's text being parsed: `step` reads a slice of it; `out` holds what was read once a step says done. */
interface DocumentsParse {
  /** Reads up to `lexemes` more lexemes of YAML (a JSON text at once); true once the text is read. */
  step(lexemes: number): boolean;
  readonly out: ParsedSource;
}

function startParse(source: string, given: string): DocumentsParse {
  const out: ParsedSource = { source, documents: [], problems: [] };
  const done = { step: () => true, out };
  // A byte-order mark (Windows editors write one) is dropped, as kubectl drops it when it reads a file:
  // JSON.parse would refuse it; the YAML parser skips it already.
  const text = given.charCodeAt(0) === 0xfeff ? given.slice(1) : given;
  if (isJsonText(text)) {
    let value: JsonValue;
    try {
      value = parseJson(text);
    } catch (err) {
      out.problems.push({ source, index: 0, path: '', message: `invalid JSON: ${(err as Error).message}`, effect: 'ignored' });
      return done;
    }
    if (Array.isArray(value)) value.forEach((v, i) => addDocument(out, i, v));
    else addDocument(out, 0, value);
    return done;
  }
  // kubectl and the Kyverno CLI split a file with apimachinery's YAMLReader, whose LineReader ends every
  // line with a line break, the last one too: a block scalar that ends the file keeps its `\n`.
  const lines = text.endsWith('\n') ? text : `${text}\n`;
  // A document nested too deeply is refused by the reader, alone, before the parser recurses into it.
  // Each document is converted as soon as it is composed, and dropped.
  const reader = yamlDocumentReader(text, STREAM_OPTIONS, { oneSchema: true });
  const locator = {};
  let index = 0;
  const onDocument = (doc: Document.Parsed): boolean => {
    locateFirstProblems(doc, STREAM_OPTIONS, locator, text);
    addParsed(out, index++, doc, text, lines);
    return true;
  };
  return {
    out,
    step(lexemes) {
      try {
        return reader.read(lexemes, onDocument);
      } catch (err) {
        // The text as a whole could not be read: one problem, no document of it.
        out.documents = [];
        out.problems = [{ source, index: 0, path: '', message: `invalid YAML: ${(err as Error).message}`, effect: 'ignored' }];
        return true;
      }
    },
  };
}

/** One composed document of a YAML stream: its value, or its problem. */
function addParsed(out: ParsedSource, index: number, doc: Document.Parsed, text: string, lines: string): void {
  const { source } = out;
  if (doc.errors.length > 0) {
    out.problems.push({ source, index, path: '', message: `invalid YAML: ${doc.errors[0].message}`, effect: 'ignored' });
    return;
  }
  try {
    addDocument(out, index, yamlDocumentValue(doc, lines));
  } catch (err) {
    const where = err instanceof YamlError && err.offset !== undefined ? yamlErrorLocation(text, err.offset) : '';
    out.problems.push({ source, index, path: '', message: `invalid YAML: ${(err as Error).message}${where}`, effect: 'ignored' });
  }
}

export function parseDocuments(source: string, given: string): ParsedSource {
  const parse = startParse(source, given);
  parse.step(Infinity);
  return parse.out;
}

/**
 * YAML lexemes read per slice by {@link parseDocumentsInSlices} at most: some 2 µs each with the parser's
 * code optimized (a 1 MiB file of 100,000 tiny documents is a million lexemes; a 570 KB CRD, 67,000), so
 * a slice is about 10 ms, plus the composing and conversion of a large document where it ends.
 */
export const LEXEMES_PER_SLICE = 4096;

/**
 * Time a slice may take before it ends short of LEXEMES_PER_SLICE: at a server's start the parser's code
 * is not optimized yet, and slices of 4,096 lexemes of MutatingAdmissionPolicies took 100-540 ms each
 * (36-140 ms warm on a busy host), the probes waiting behind each.
 */
export const PARSE_SLICE_MS = 8;

/** Lexemes read between two looks at the clock. */
const LEXEMES_PER_CHECK = 256;

/**
 * {@link parseDocuments}, a slice of the text at a time, awaiting `pause` between slices: on a server the
 * thread that parses also answers probes and reviews, and a file of 1 MiB takes a second or more to read.
 * A slice is `lexemesPerSlice` lexemes, or fewer once `sliceMs` has passed. The same result as parseDocuments.
 */
export async function parseDocumentsInSlices(source: string, given: string, pause: () => Promise<void>, lexemesPerSlice = LEXEMES_PER_SLICE, sliceMs = PARSE_SLICE_MS): Promise<ParsedSource> {
  const parse = startParse(source, given);
  for (;;) {
    const start = performance.now();
    for (let read = 0; read < lexemesPerSlice; ) {
      const lexemes = Math.min(LEXEMES_PER_CHECK, lexemesPerSlice - read);
      if (parse.step(lexemes)) return parse.out;
      read += lexemes;
      if (performance.now() - start >= sliceMs) break;
    }
    await pause();
  }
}
