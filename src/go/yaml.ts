/**
 * YAML → JSON as `sigs.k8s.io/yaml` does it (go-yaml v2 `Unmarshal` into `interface{}`, then
 * `encoding/json`): how kubectl and the Kyverno CLI read manifests, and how Kyverno reads
 * `patchesJson6902` text and `parse_yaml`. The `yaml` package parses (syntax, streams, anchors, node
 * ranges); every value is then resolved here from its source text with go-yaml v2's rules
 * (`resolve.go`, `decode.go`), not with the `yaml` package's schema:
 *
 * - plain scalars: `y Y yes Yes YES true True TRUE on On ON` are true, `n N no No NO false False FALSE
 *   off Off OFF` false, `"" ~ null Null NULL` null, `.inf`/`.nan` (and signed forms) floats;
 *   numbers by `strconv.ParseInt(s, 0, 64)` with `_` removed (so `0400` is octal 256, `0x1F`, `0o17`,
 *   `0b101`), then `ParseUint`, then floats of the `yamlStyleFloat` form (`08` is the float 8), else the
 *   text; timestamps and base-60 numbers stay strings; quoted and block scalars are strings;
 * - explicit tags `!!str !!int !!float !!bool !!null !!timestamp` resolve the text as that type (or
 *   fail as go-yaml fails: "cannot decode !!str `x` as a !!int"), `!!binary` is its decoded bytes read
 *   as UTF-8 text, any other tag leaves the text;
 * - `<<` merges a mapping, an alias of one, or a sequence of them, in place and in order, as v2's
 *   decoder does: a later key (explicit or merged) replaces an earlier one, and in a sequence the
 *   earlier mappings win;
 * - map keys become JSON strings as sigs.k8s.io/yaml's `convertToJSONableObject` writes them (`on:` →
 *   `"true"`, `1.5:` → float32 `%g`), a null key is an error;
 * - `.inf`/`.nan` values are errors (`encoding/json` cannot write them);
 * - aliasing is bounded by go-yaml v2.4's ratio rule ("document contains excessive aliasing");
 * - nesting is bounded by MAX_YAML_DEPTH, checked before the `yaml` package recurses into a document.
 */
import { isAlias, isMap, isScalar, isSeq, Schema, YAMLParseError, type Document, type DocumentOptions, type Node as YamlNode, type ParseOptions, type Scalar, type SchemaOptions, type Tags, type YAMLMap } from 'yaml';
import { hasOwn, numberMarkOf, OBJECT_MEMBER_TAGS, setNumberMark, setOwn, shownNumberLiteral, type JsonObject, type JsonValue, type NumberMark } from '../json/index.js';
import { base64Decode } from './base64.js';
import { parseFloat64 } from './float.js';
import { nestsTooDeeply, YamlDocumentReader, type LexemeGuard } from './yaml-documents.js';

const GO_YAML_V2_UNKNOWN = new Set(['tag:yaml.org,2002:timestamp', 'tag:yaml.org,2002:set', 'tag:yaml.org,2002:omap', 'tag:yaml.org,2002:pairs']);

/** Parse options of {@link parseYaml11Document}; its node values are the `yaml` package's YAML 1.1 ones. */
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

/**
 * Parse options of the texts that are only converted (parseYaml11, parseYaml11FirstDocument): yaml11Json
 * reads the nodes' text, never the values the `yaml` package resolved, and the failsafe schema resolves
 * none (the YAML 1.1 one tests each plain scalar against its tags' patterns). Neither schema makes an
 * error the other does not: only warnings for explicit tags differ, and yaml11Json reads none.
 */
const CONVERT_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = { version: '1.1', schema: 'failsafe', uniqueKeys: false };

export class YamlError extends Error {
  override name = 'YamlError';
  /** Offset in the text of the node the error is about, when known. */
  readonly offset: number | undefined;
  constructor(message: string, offset?: number) {
    super(message);
    this.offset = offset;
  }
}

export interface Yaml11JsonOptions {
  /**
   * Refuse a mapping that writes the same key twice (compared as the JSON key it becomes), as
   * sigs.k8s.io/yaml's UnmarshalStrict and kubectl's default `--validate=strict` do. Keys brought in by
   * `<<` never count. Default: the later key wins (`YAMLToJSON`).
   */
  uniqueKeys?: boolean;
  /** Deepest nesting of collections accepted, aliases followed (default and at most: MAX_YAML_DEPTH). */
  maxDepth?: number;
  /**
   * Mark integral float literals (`1.0`, `1e3`) with `markFloatLiteral`, for CEL's int/double, and integers
   * past ±2^53 within int64 with their exact value (`markExactInteger`), as go-yaml v2 decodes them into an
   * int64 and parseJson marks them in JSON.
   */
  markNumbers?: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** The JSON value of a one-document YAML text (`null` for an empty one). Throws YamlError. */
export function parseYaml11(text: string, guard?: YamlTicker): JsonValue {
  // The document is only read and dropped: it may share the Schema of the others (withOneSchema).
  return yaml11Json(parseYamlDepthBounded(text, CONVERT_OPTIONS, true, guard, true)[0], text);
}

/**
 * The JSON value of the first document of a YAML text (`null` for none), as go-yaml v2's `Unmarshal`
 * (so sigs.k8s.io/yaml's `Unmarshal`) reads a stream: it decodes the first document and never reads the
 * others, so what follows a `---` after it is neither decoded nor checked. Throws YamlError, or what
 * `guard` throws (YamlTicker).
 */
export function parseYaml11FirstDocument(text: string, guard?: YamlTicker): JsonValue {
  const doc = parseYamlDepthBounded(text, CONVERT_OPTIONS, 'first', guard, true)[0];
  return doc ? yaml11Json(doc, text) : null;
}

/** The parsed document of a YAML 1.1 text, as go-yaml v2 reads it; errors are in `doc.errors`. */
export function parseYaml11Document(text: string, guard?: YamlTicker): Document.Parsed {
  return parseYamlDepthBounded(text, OPTIONS, true, guard)[0];
}

/**
 * The deepest nesting of collections read from YAML. The `yaml` package composes a document recursively,
 * around 1 KiB of stack a level until V8 optimises it (on Node's default stack it overflows from about 790
 * levels, a little deeper once warm), and its parser closes nested block collections recursively too (a
 * dedent of some 1500 levels overflows). So a document is refused while it is parsed, once its open
 * collections pass this bound, before either recursion goes that deep: at the same depth on every stack.
 */
export const MAX_YAML_DEPTH = 500;

/**
 * A review's guard (src/guard's ReviewGuard), ticked once per lexeme: text from a review (parse_yaml,
 * yaml.parse) of a few MB takes the `yaml` package seconds to lex and parse (a 3.5 MB mapping of 300,000
 * keys: 5.8 s), and the review's deadline must be able to stop it. Its throw leaves the parse as it is.
 */
export interface YamlTicker {
  tick(): void;
  /**
   * The review's value bound (AMENDER_MAX_VALUE_BYTES). The `yaml` package holds about 0.5 KB per value of
   * the document it reads (a 0.2 MB flow list of 100,000 numbers does not fit in 64 MB of heap), so one
   * review's text could exhaust a 128 MB isolate or Lambda: a text of more than `maxValueBytes /
   * YAML_BYTES_PER_VALUE` values is refused before it is composed.
   */
  readonly maxValueBytes?: number;
}

/** What each value of a YAML text a review reads counts against its value bound (6 MiB: 49,152 values). */
export const YAML_BYTES_PER_VALUE = 128;

type ComposeOptions = ParseOptions & DocumentOptions & SchemaOptions;

/** Parse options with OBJECT_MEMBER_TAGS added, by the options they extend. */
const withMemberTags = new WeakMap<ComposeOptions, ComposeOptions>();

/** `options` with OBJECT_MEMBER_TAGS after its own custom tags (made once per options object). */
function withObjectMemberTags(options: ComposeOptions): ComposeOptions {
  let extended = withMemberTags.get(options);
  if (!extended) {
    const custom = options.customTags;
    const customTags = (tags: Tags): Tags => [...(typeof custom === 'function' ? custom(tags) : [...tags, ...(custom ?? [])]), ...OBJECT_MEMBER_TAGS];
    withMemberTags.set(options, (extended = { ...options, customTags }));
  }
  return extended;
}

/** A review's guard as the document reader calls it: its ticks, and its value bound. */
function lexemeGuard(guard: YamlTicker): LexemeGuard {
  const maxValues = guard.maxValueBytes === undefined ? Infinity : Math.floor(guard.maxValueBytes / YAML_BYTES_PER_VALUE);
  let values = 0;
  return {
    tick: () => guard.tick(),
    value: () => {
      if (++values > maxValues) throw new YamlError(`the YAML text holds more than ${maxValues} values, more than a review may read (AMENDER_MAX_VALUE_BYTES / ${YAML_BYTES_PER_VALUE})`);
    },
  };
}

/** Options with one Schema made for them, by the options they extend. */
const withSchema = new WeakMap<ComposeOptions, ComposeOptions>();

/**
 * `options` (YAML 1.1) with the Schema each Document would make of them, made once. The `yaml` package
 * makes a Schema per Document (its tags listed, our customTags called): 116,508 of them for a 1 MiB file of
 * tiny documents. A YAML 1.1 Schema is never changed while composing (only one that resolves known tags,
 * as 1.2 does, adds those it meets), and a Document reads it from `options.schema` whatever its version, so this serves only a
 * text without a `%YAML` directive (which could make a document 1.2).
 */
function withOneSchema(options: ComposeOptions): ComposeOptions {
  let extended = withSchema.get(options);
  if (!extended) {
    // What Document.setSchema('1.1', options) gives the Schema it makes.
    const schema = new Schema({ resolveKnownTags: false, schema: 'yaml-1.1', ...options } as ConstructorParameters<typeof Schema>[0]);
    withSchema.set(options, (extended = { ...options, schema: schema as unknown as SchemaOptions['schema'] }));
  }
  return extended;
}

/**
 * A reader of the documents of `text` (yaml-documents.ts), each composed as parseYamlDepthBounded
 * composes it; the caller reads it a slice at a time and gives each document to {@link locateFirstProblems}.
 * `oneSchema`: the documents share one Schema (withOneSchema), for a caller that only reads them, as
 * yaml11Json does, and drops them.
 */
export function yamlDocumentReader(text: string, options: ComposeOptions, { forceDoc = false, guard, oneSchema = false }: { forceDoc?: boolean; guard?: YamlTicker; oneSchema?: boolean } = {}): YamlDocumentReader {
  const extended = withObjectMemberTags(options);
  const given = oneSchema && options.version === '1.1' && options.resolveKnownTags !== true && !text.includes('%YAML') ? withOneSchema(extended) : extended;
  return new YamlDocumentReader(text, given, MAX_YAML_DEPTH, forceDoc, guard ? lexemeGuard(guard) : undefined);
}

/**
 * Gives the first error (and warning) of a document, the one anything reports, its line and column (with
 * `prettyErrors`, the default). `locator` holds the text's line breaks, found once for all its documents.
 */
export function locateFirstProblems(doc: Document.Parsed, options: ComposeOptions, locator: { locate?: (offset: number) => string }, text: string): void {
  if (options.prettyErrors === false) return;
  for (const error of [doc.errors[0], doc.warnings[0]]) if (error && error.pos[0] !== -1) error.message += (locator.locate ??= yamlErrorLocator(text))(error.pos[0]);
}

/**
 * `parseAllDocuments` (`single`: `parseDocument`; `'first'`: the first document only, none for an empty
 * stream, the others left unread), except that a document nesting more than MAX_YAML_DEPTH collections is
 * composed as an empty document whose error says so, pointing at its first collection too deep; the
 * documents around it are composed as usual. Only the first error (and warning) of a document, the one
 * anything reports, is given its line and column.
 *
 * A text can hold an error every two characters (a review string substituted into a Kyverno patch, or
 * given to parse_yaml): the `yaml` package makes each one an Error, and capturing their stack traces was
 * most of the parse (100,000 errors: ~0.9 of ~1.2 s), so none is captured while composing.
 * `oneSchema`: as yamlDocumentReader's, for a caller that only reads the documents and drops them.
 */
export function parseYamlDepthBounded(text: string, options: ComposeOptions, single: boolean | 'first' = false, guard?: YamlTicker, oneSchema = false): Document.Parsed[] {
  const docs: Document.Parsed[] = [];
  yamlDocumentReader(text, options, { forceDoc: single === true, guard, oneSchema }).read(Infinity, (doc) => {
    if (single === 'first' && docs.length === 1) return false;
    if (single && docs.length === 1) {
      docs[0].errors.push(new YAMLParseError([doc.range[0], doc.range[1]], 'MULTIPLE_DOCS', 'the text holds multiple documents where one is expected'));
      return false;
    }
    docs.push(doc);
    return true;
  });
  const locator = {};
  for (const doc of docs) locateFirstProblems(doc, options, locator, text);
  return docs;
}

/** What yamlErrorLocation adds after ` at line L, column C`: the line and its caret. */
const QUOTED_LINE = /:\n\n[^\n]*\n?[^\n]*\^+\n/g;

/** A message without the lines yamlErrorLocation quoted (line and column stay): for a reader who may not see the text. */
export function withoutQuotedLine(message: string): string {
  return message.replace(QUOTED_LINE, '');
}

/** ` at line L, column C:` and the line with a caret under the column: where a YAML error is, for a person. */
export function yamlErrorLocation(text: string, offset: number): string {
  return yamlErrorLocator(text)(offset);
}

/** The longest excerpt of a line quoted under an error, in UTF-16 code units (longer lines are cut around the column). */
const QUOTED_LINE_MAX = 80;

/**
 * {@link yamlErrorLocation} for many errors of one text: the line breaks are found once, and each error
 * costs a binary search and its excerpt. Counting and scanning the text per error cost the text's length
 * each: a review string of 160,000 `"` given to parse_yaml has 80,000 errors, and took 2.7 s.
 */
export function yamlErrorLocator(text: string): (offset: number) => string {
  const breaks: number[] = [];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) breaks.push(at);
  return (offset) => {
    // The line breaks before the offset: the line's number, and where it starts.
    let low = 0;
    let high = breaks.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (breaks[mid] < offset) low = mid + 1;
      else high = mid;
    }
    const lineStart = low > 0 ? breaks[low - 1] + 1 : 0;
    let lineEnd = low < breaks.length ? breaks[low] : text.length;
    if (lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 0x0d) lineEnd--;
    const length = lineEnd - lineStart;
    const col = offset - lineStart + 1;
    let caret = col - 1;
    let src: string;
    if (length > QUOTED_LINE_MAX) {
      const from = Math.max(0, Math.min(caret - 40, length - QUOTED_LINE_MAX));
      src = (from > 0 ? '…' : '') + text.slice(lineStart + from, lineStart + from + QUOTED_LINE_MAX - 1) + (from + QUOTED_LINE_MAX - 1 < length ? '…' : '');
      caret = caret - from + (from > 0 ? 1 : 0);
    } else {
      src = text.slice(lineStart, lineEnd);
    }
    return ` at line ${low + 1}, column ${col}:\n\n${src}\n${' '.repeat(Math.max(0, caret))}^\n`;
  };
}

/**
 * The JSON value of a document parsed from `text`, read as sigs.k8s.io/yaml reads it. Throws YamlError.
 * Only the nodes' source text, style, explicit tag, anchors and ranges are read, never the values the
 * `yaml` package resolved: the document may come from {@link parseYaml11Document} or from any schema
 * (the failsafe one is the cheapest) with `uniqueKeys: false`.
 */
export function yaml11Json(doc: Document.Parsed, text: string, options: Yaml11JsonOptions = {}): JsonValue {
  if (doc.errors.length > 0) throw new YamlError(readableError(doc.errors[0].message));
  if (doc.contents === null) return null;
  return new Decoder(text, options).value(doc.contents as YamlNode, 0);
}

/** The `yaml` composer reports a stack overflow as a parse error (a document not parsed with parseYamlDepthBounded, or a stack nearly full already): say what it means. */
function readableError(message: string): string {
  return message.startsWith('Maximum call stack size exceeded') ? `the document nests too deeply to read (${message})` : message;
}

// ---- go-yaml v2 resolve.go ---------------------------------------------------------------------------

const TAG = 'tag:yaml.org,2002:';
const STR = `${TAG}str`;
const BOOL = `${TAG}bool`;
const INT = `${TAG}int`;
const FLOAT = `${TAG}float`;
const NULL = `${TAG}null`;
const TIMESTAMP = `${TAG}timestamp`;
const BINARY = `${TAG}binary`;
const MERGE = `${TAG}merge`;
const RESOLVABLE = new Set(['', STR, BOOL, INT, FLOAT, NULL, TIMESTAMP]);

type Kind = 'str' | 'bool' | 'int' | 'float' | 'null' | 'timestamp' | 'merge';
interface Resolved {
  kind: Kind;
  value: string | boolean | number | bigint | null;
}

const KIND_OF_TAG: Record<string, Kind> = { [STR]: 'str', [BOOL]: 'bool', [INT]: 'int', [FLOAT]: 'float', [NULL]: 'null', [TIMESTAMP]: 'timestamp' };

/** resolveTable: the first byte says which forms a plain scalar may take. */
const HINT = new Uint8Array(256);
for (const c of '+-') HINT[c.charCodeAt(0)] = 83; // 'S'
for (const c of '0123456789') HINT[c.charCodeAt(0)] = 68; // 'D'
for (const c of 'yYnNtTfFoO~') HINT[c.charCodeAt(0)] = 77; // 'M'
HINT['.'.charCodeAt(0)] = 46; // '.'

/** resolveMap. */
const RESOLVE_MAP = new Map<string, Resolved>();
const put = (kind: Kind, value: Resolved['value'], words: string[]) => words.forEach((w) => RESOLVE_MAP.set(w, { kind, value }));
put('bool', true, ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
put('bool', false, ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
put('null', null, ['', '~', 'null', 'Null', 'NULL']);
put('float', NaN, ['.nan', '.NaN', '.NAN']);
put('float', Infinity, ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']);
put('float', -Infinity, ['-.inf', '-.Inf', '-.INF']);
put('merge', '<<', ['<<']);

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** strconv.ParseInt / ParseUint with base 0 (Go ≥ 1.13 prefixes); the text has no `_` left. */
const INT_BASE0 = /^([-+]?)(?:0([xX])([0-9a-fA-F]+)|0([oO])([0-7]+)|0([bB])([01]+)|0([0-7]*)|([1-9][0-9]*))$/;
const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;
const MAX_UINT64 = (1n << 64n) - 1n;
/** parseTimestamp's quick check and formats (`2006-1-2`, with a time after `T`, `t` or a space). */
const TIMESTAMP_FORM = /^\d{4}-\d{1,2}-\d{1,2}(?:[Tt ]\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})?)?$/;

function parseBase0(plain: string): { sign: string; value: bigint } | undefined {
  const m = INT_BASE0.exec(plain);
  if (!m) return undefined;
  let value: bigint;
  if (m[2]) value = BigInt(`0x${m[3]}`);
  else if (m[4]) value = BigInt(`0o${m[5]}`);
  else if (m[6]) value = BigInt(`0b${m[7]}`);
  else if (m[8] !== undefined) value = m[8] === '' ? 0n : BigInt(`0o${m[8]}`);
  else value = m[9].length > DECIMAL_DIGITS_PAST_DOUBLE ? PAST_DOUBLE : BigInt(m[9]);
  return { sign: m[1], value: m[1] === '-' ? -value : value };
}

/**
 * Decimal digits (no leading zero) past which the value is beyond every double (10^400 > 1.8e308), and
 * the stand-in read for them: an integer that no int64, uint64 or double holds either, which is all its
 * readers ask (value() refuses it as out of the range of a double, naming the text). V8 reads a decimal
 * BigInt in superlinear time: the 3,000,000 digits a 3 MB review can hold for parse_yaml took 1.5 s.
 */
const DECIMAL_DIGITS_PAST_DOUBLE = 400;
const PAST_DOUBLE = 1n << 1100n;

/**
 * The kind of the value resolve and resolveTagged last returned: an out-parameter, so that no object is
 * made per scalar (most of a document's scalars; the walk is synchronous, nothing runs in between).
 */
let resolvedKind: Kind = 'str';

/**
 * A decimal integer of 1 to 15 digits, signed or not, as strconv.ParseInt reads it (`-0` is 0); undefined
 * for any other text. The common case of resolve's integers, read without a regex or a bigint.
 */
function smallDecimal(text: string): number | undefined {
  const first = text.charCodeAt(0);
  const start = first === 0x2b /* + */ || first === 0x2d /* - */ ? 1 : 0;
  const digits = text.length - start;
  // A leading 0 is octal or a prefix (`0x1F`), unless the text is `0`.
  if (digits < 1 || digits > 15 || (digits > 1 && text.charCodeAt(start) === 0x30)) return undefined;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  return Number(text) + 0;
}

/**
 * resolve(tag, in) of go-yaml v2 for a resolvable tag ('' for a plain scalar without one): the value, its
 * kind in resolvedKind. An int is a number when it came from smallDecimal, else a bigint.
 */
function resolve(tag: string, text: string): Resolved['value'] {
  const hint = text === '' ? 78 /* 'N' */ : text.charCodeAt(0) < 256 ? HINT[text.charCodeAt(0)] : 0;
  if (hint !== 0 && tag !== STR) {
    const item = RESOLVE_MAP.get(text);
    if (item) {
      resolvedKind = item.kind;
      return item.value;
    }
    if (hint === 46) {
      const f = parseFloat64(text);
      if (f !== undefined) {
        resolvedKind = 'float';
        return f;
      }
    } else if (hint === 68 || hint === 83) {
      // Digits alone never match TIMESTAMP_FORM (it needs a `-` after four digits).
      const small = smallDecimal(text);
      if (small !== undefined) {
        resolvedKind = 'int';
        return small;
      }
      if ((tag === '' || tag === TIMESTAMP) && TIMESTAMP_FORM.test(text)) {
        resolvedKind = 'timestamp';
        return text;
      }
      const plain = text.includes('_') ? text.replaceAll('_', '') : text;
      const int = parseBase0(plain);
      if (int && int.value >= MIN_INT64 && int.value <= MAX_INT64) {
        resolvedKind = 'int';
        return int.value;
      }
      if (int && int.sign === '' && int.value <= MAX_UINT64) {
        resolvedKind = 'int';
        return int.value;
      }
      if (YAML_STYLE_FLOAT.test(plain)) {
        const f = parseFloat64(plain);
        if (f !== undefined) {
          resolvedKind = 'float';
          return f;
        }
      }
      // ParseUint's range error (an unsigned text too large for 64 bits): math/big reads it.
      if (int && int.sign === '') {
        resolvedKind = 'int';
        return int.value;
      }
    }
  }
  resolvedKind = 'str';
  return text;
}

const SHORT_TAG = (tag: string) => (tag.startsWith(TAG) ? `!!${tag.slice(TAG.length)}` : tag);

/** resolve's deferred check of an explicit tag against what the text resolved to (kind in resolvedKind). */
function resolveTagged(tag: string, text: string): Resolved['value'] {
  const value = resolve(tag, text);
  const kind = resolvedKind;
  const want = KIND_OF_TAG[tag];
  if (tag === '' || want === 'str' || want === kind) return value;
  if (want === 'float' && kind === 'int') {
    resolvedKind = 'float';
    return Number(value);
  }
  throw new YamlError(`cannot decode ${SHORT_TAG(kind === 'str' ? STR : `${TAG}${kind}`)} \`${text}\` as a ${SHORT_TAG(tag)}`);
}

// ---- go-yaml v2 decode.go + sigs.k8s.io/yaml convertToJSONableObject --------------------------------

// go-yaml v2.4 decode.go: the share of a document that alias expansion may make up.
const ALIAS_RATIO_RANGE_LOW = 400_000;
const ALIAS_RATIO_RANGE_HIGH = 4_000_000;

function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= ALIAS_RATIO_RANGE_LOW) return 0.99;
  if (decodeCount >= ALIAS_RATIO_RANGE_HIGH) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - ALIAS_RATIO_RANGE_LOW) / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW));
}

const offsetOf = (node: YamlNode | null | undefined): number | undefined => node?.range?.[0];

function isMergeKey(node: unknown): boolean {
  if (!isScalar(node)) return false;
  const tag = node.tag ?? '';
  // go-yaml's isMerge: a `<<` that is plain and untagged, or tagged !!merge.
  return (tag === '' && node.type === 'PLAIN' && node.source === '<<') || tag === MERGE;
}

/** The JSON text of a float key: strconv.FormatFloat(f, 'g', -1, 32), then `.inf`/`-.inf`/`.nan`. */
function floatKey(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  const x = Math.fround(f);
  if (x === Infinity) return '.inf';
  if (x === -Infinity) return '-.inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let mantissa = '';
  let exp = 0;
  for (let p = 1; p <= 9; p++) {
    const s = Math.abs(x).toExponential(p - 1);
    if (Math.fround(Number(s)) === Math.abs(x) || p === 9) {
      const [m, e] = s.split('e');
      mantissa = m.replace('.', '');
      exp = Number(e);
      break;
    }
  }
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const frac = mantissa.length > 1 ? `.${mantissa.slice(1)}` : '';
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${mantissa[0]}${frac}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${mantissa}`;
  const int = mantissa.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = mantissa.slice(exp + 1);
  return `${sign}${int}${frac ? `.${frac}` : ''}`;
}

function nonFinite(f: number, offset: number | undefined): YamlError {
  const go = f > 0 ? '+Inf' : f < 0 ? '-Inf' : 'NaN';
  const js = f > 0 ? 'Infinity' : f < 0 ? '-Infinity' : 'NaN';
  return new YamlError(`json: unsupported value: ${go} (JSON has no ${js})`, offset);
}

class Decoder {
  private readonly anchors = new Map<string, YamlNode>();
  private readonly inProgress = new Set<YamlNode>();
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  /** The literal form of the last scalar value (see Yaml11JsonOptions.markNumbers). */
  private mark: NumberMark = undefined;
  private readonly maxDepth: number;

  constructor(
    private readonly text: string,
    private readonly options: Yaml11JsonOptions,
  ) {
    this.maxDepth = Math.min(options.maxDepth ?? MAX_YAML_DEPTH, MAX_YAML_DEPTH);
  }

  /** d.unmarshal's accounting. */
  private count(node: YamlNode): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) this.aliasCount++;
    if (this.aliasCount > 100 && this.decodeCount > 1000 && this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)) {
      throw new YamlError('document contains excessive aliasing', offsetOf(node));
    }
  }

  private anchor(node: YamlNode): void {
    // Anchors are defined in the order of the text; an alias expansion defines none again.
    const name = (node as { anchor?: string }).anchor;
    if (name && this.aliasDepth === 0) this.anchors.set(name, node);
  }

  private target(alias: YamlNode): YamlNode {
    const name = (alias as unknown as { source: string }).source;
    const target = this.anchors.get(name);
    if (!target) throw new YamlError(`unknown anchor '${name}' referenced`, offsetOf(alias));
    if (this.inProgress.has(target)) throw new YamlError(`anchor '${name}' value contains itself`, offsetOf(alias));
    return target;
  }

  value(node: YamlNode | null, depth: number): JsonValue {
    this.mark = undefined;
    if (node === null || node === undefined) return null;
    this.count(node);
    if (isScalar(node)) {
      this.anchor(node);
      const value = this.scalar(node);
      switch (resolvedKind) {
        case 'null':
          return null;
        case 'bool':
          return value as boolean;
        case 'int': {
          // smallDecimal's number, else a bigint.
          if (typeof value === 'number') return value;
          const n = Number(value);
          // An unsigned integer past 64 bits (math/big's): no double holds one past 1.8e308 either.
          if (n === Infinity) throw new YamlError(`number ${shownNumberLiteral(node.source ?? String(value))} is out of the range of a double`, offsetOf(node));
          // Past int64 (a uint64), Go's JSON decoder reads a double: no exact value.
          const v = value as bigint;
          if (this.options.markNumbers === true && !Number.isSafeInteger(n) && v >= MIN_INT64 && v <= MAX_INT64) this.mark = v;
          return n;
        }
        case 'float': {
          const f = value as number;
          if (!Number.isFinite(f)) throw nonFinite(f, offsetOf(node));
          if (this.options.markNumbers === true && Number.isInteger(f) && node.tag === undefined && /[.eE]/.test(node.source ?? '')) this.mark = 'float';
          return f;
        }
        default:
          return value as string;
      }
    }
    if (isAlias(node)) {
      const target = this.target(node);
      this.aliasDepth++;
      try {
        return this.value(target, depth);
      } finally {
        this.aliasDepth--;
      }
    }
    if (depth >= this.maxDepth) throw new YamlError(nestsTooDeeply(this.maxDepth), offsetOf(node));
    this.anchor(node);
    const anchored = (node as { anchor?: string }).anchor !== undefined;
    if (anchored) this.inProgress.add(node);
    try {
      if (isMap(node)) return this.mapping(node as YAMLMap.Parsed, depth + 1);
      if (isSeq(node)) {
        const out: JsonValue[] = [];
        let marks: Map<number, NumberMark> | undefined;
        for (const item of node.items) {
          out.push(this.value(item as YamlNode | null, depth + 1));
          if (this.mark !== undefined) (marks ??= new Map()).set(out.length - 1, this.mark);
        }
        marks?.forEach((mark, i) => setNumberMark(out, i, mark));
        this.mark = undefined;
        return out;
      }
    } finally {
      if (anchored) this.inProgress.delete(node);
    }
    throw new YamlError('unsupported YAML node', offsetOf(node));
  }

  /** The resolved value of a scalar node (its text, style and explicit tag), as go-yaml v2 decodes it; its kind in resolvedKind. */
  private scalar(node: Scalar): Resolved['value'] {
    const tag = node.tag ?? '';
    if (tag === '') {
      if (node.type === 'PLAIN' || node.type === undefined) return resolve('', node.source ?? String(node.value ?? ''));
      resolvedKind = 'str';
      return this.scalarText(node);
    }
    const text = this.scalarText(node);
    if (tag === BINARY) {
      let bytes: Uint8Array;
      try {
        bytes = base64Decode(text);
      } catch {
        throw new YamlError('!!binary value contains invalid base64 data', offsetOf(node));
      }
      resolvedKind = 'str';
      return utf8.decode(bytes);
    }
    if (!RESOLVABLE.has(tag)) {
      resolvedKind = 'str';
      return text;
    }
    try {
      return resolveTagged(tag, text);
    } catch (e) {
      if (e instanceof YamlError) throw new YamlError(e.message, offsetOf(node));
      throw e;
    }
  }

  /** A scalar's text; a clipped block scalar that ends the text keeps no line break it does not have. */
  private scalarText(node: Scalar): string {
    const value = typeof node.value === 'string' && node.tag === undefined ? node.value : (node.source ?? String(node.value ?? ''));
    if ((node.type === 'BLOCK_FOLDED' || node.type === 'BLOCK_LITERAL') && !this.text.endsWith('\n') && value.endsWith('\n')) {
      const [start, , end] = node.range ?? [0, 0, 0];
      const header = this.text.slice(start, this.text.indexOf('\n', start) >>> 0);
      if (end >= this.text.length && !header.includes('+')) return value.slice(0, -1);
    }
    return value;
  }

  /** A map key as the JSON key sigs.k8s.io/yaml makes of it. */
  private key(node: YamlNode | null): string {
    if (node === null || node === undefined) throw new YamlError('unsupported map key of type: <nil>');
    this.count(node);
    let scalarNode: YamlNode = node;
    if (isAlias(node)) {
      scalarNode = this.target(node);
      this.aliasDepth++;
      this.count(scalarNode);
      this.aliasDepth--;
    } else {
      this.anchor(node);
    }
    if (!isScalar(scalarNode)) throw new YamlError('invalid map key: a mapping or sequence', offsetOf(node));
    const value = this.scalar(scalarNode);
    switch (resolvedKind) {
      case 'bool':
        return value ? 'true' : 'false';
      case 'int': {
        // smallDecimal's number (a safe integer, never -0) or a bigint: the same decimal text.
        const v = value as bigint | number;
        if (v < MIN_INT64 || v > MAX_INT64) {
          // PAST_DOUBLE stands for a longer text's value: the text says it (as math/big prints it).
          const shown = v === PAST_DOUBLE || v === -PAST_DOUBLE ? (scalarNode.source ?? '').replaceAll('_', '').replace(/^\+/, '') : String(v);
          throw new YamlError(`unsupported map key of type: ${v > MAX_UINT64 ? '*big.Int' : 'uint64'}, key: ${shown}`, offsetOf(node));
        }
        return v.toString();
      }
      case 'float':
        return floatKey(value as number);
      case 'null':
        throw new YamlError('unsupported map key of type: <nil>', offsetOf(node));
      default:
        return value as string;
    }
  }

  private mapping(node: YAMLMap.Parsed, depth: number): JsonObject {
    const out: JsonObject = {};
    let marks: Map<string, NumberMark> | undefined;
    const unique = this.options.uniqueKeys === true;
    // The keys written so far, for uniqueKeys: those of `out` until a `<<` merges others in (most
    // mappings have none, and need no set of their own).
    let explicit: Set<string> | undefined;
    for (const pair of node.items) {
      const keyNode = pair.key as YamlNode | null;
      if (isMergeKey(keyNode)) {
        this.count(keyNode as YamlNode);
        if (unique) explicit ??= new Set(Object.keys(out));
        marks = this.merge(pair.value as YamlNode | null, out, marks, depth);
        continue;
      }
      const key = this.key(keyNode);
      if (unique) {
        if (explicit ? explicit.has(key) : hasOwn(out, key)) throw new YamlError(`Map keys must be unique: key ${JSON.stringify(key)} already set in map`, offsetOf(keyNode));
        explicit?.add(key);
      }
      setOwn(out, key, this.value(pair.value as YamlNode | null, depth));
      if (this.mark !== undefined) (marks ??= new Map()).set(key, this.mark);
      else marks?.delete(key);
    }
    marks?.forEach((mark, k) => setNumberMark(out, k, mark));
    this.mark = undefined;
    return out;
  }

  /** d.merge: a mapping, an alias of one, or a sequence of them (the earlier ones win), set into `out`. */
  private merge(node: YamlNode | null, out: JsonObject, marks: Map<string, NumberMark> | undefined, depth: number): Map<string, NumberMark> | undefined {
    const fail = () => new YamlError('map merge requires map or sequence of maps as the value', offsetOf(node));
    /** A mapping, or an alias of one (the anchors of the earlier items are defined by then). */
    const mapping = (n: unknown): YamlNode | undefined => {
      if (isMap(n)) return n as YamlNode;
      if (isAlias(n) && isMap(this.target(n as YamlNode))) return n as YamlNode;
      return undefined;
    };
    const sources: JsonObject[] = [];
    if (isSeq(node)) {
      for (const item of node.items) {
        const n = mapping(item);
        if (!n) throw fail();
        sources.push(this.value(n, depth) as JsonObject);
      }
      sources.reverse();
    } else {
      const n = mapping(node);
      if (!n) throw fail();
      sources.push(this.value(n, depth) as JsonObject);
    }
    for (const source of sources) {
      for (const k of Object.keys(source)) {
        setOwn(out, k, source[k]);
        const mark = numberMarkOf(source, k);
        if (mark !== undefined) (marks ??= new Map()).set(k, mark);
        else marks?.delete(k);
      }
    }
    return marks;
  }
}
