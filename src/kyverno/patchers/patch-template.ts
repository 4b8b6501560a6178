/**
 * `patchesJson6902` text is YAML with `{{ }}` variables spliced in before parsing, and YAML parsing is
 * by far the costliest step of a JSON-patch rule. So each patch text is parsed once, at compile time,
 * with every variable replaced by a placeholder; per request only the placeholder scalars are
 * substituted. The result is the same as substituting the text and parsing it — and where a substituted
 * value could make the text read differently (quotes, `: `, `#`, newlines, flow indicators, anything
 * numeric-looking that YAML 1.1 would type), `instantiate` answers `undefined` and the caller takes the
 * text path. Texts with references, escapes, shallow variables, anchors, aliases, merge keys, tags or
 * block scalars never use templates.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, Scalar, type Node } from 'yaml';
import { cloneJson, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import { goJsonStringify } from '../../go/index.js';
import { substituteString, type SubstitutionScope } from '../context/variables.js';
import { parsePatchText } from './json6902.js';
import { parseYaml11, parseYaml11Document, yaml11Json } from '../../go/index.js';

type Style = 'plain' | 'double' | 'single';

interface Slot {
  /** Where the scalar sits in the parsed patch. */
  readonly path: readonly (string | number)[];
  readonly style: Style;
  readonly inFlow: boolean;
  /** The scalar's text split around its variables: parts[0] var[0] parts[1] … var[n-1] parts[n]. */
  readonly parts: readonly string[];
  readonly variables: readonly string[];
}

export interface PatchTemplate {
  /** The patch parsed with placeholders where the variables are. */
  readonly base: JsonValue;
  readonly slots: readonly Slot[];
}

const PLACEHOLDER = (i: number) => `zqamdrvar${i}zq`;
const PLACEHOLDER_ANY = /zqamdrvar(\d+)zq/g;

/** A known text's template; `null`: the text always takes the text path. */
export type PatchTemplateEntry = readonly [text: string, template: PatchTemplate | null];

/**
 * Templates by patch text. A template depends on the text alone, so policy reloads, clusters and the
 * policies of a build-time bundle share them (the bundle ships its entries: no YAML parsed at cold start).
 * Bounded: the oldest entry goes first.
 */
const templates = new Map<string, PatchTemplate | null>();
const TEMPLATE_CACHE_SIZE = 4096;
let recording: Map<string, PatchTemplate | null> | undefined;

/** The template of a patch text, or undefined when the text must always take the text path. */
export function compilePatchTemplate(text: string): PatchTemplate | undefined {
  let template = templates.get(text);
  if (template === undefined) {
    template = parseTemplate(text) ?? null;
    if (templates.size >= TEMPLATE_CACHE_SIZE) templates.delete(templates.keys().next().value!);
    templates.set(text, template);
  }
  recording?.set(text, template);
  return template ?? undefined;
}

/** Runs `fn` and gives the template entries of every patch text it compiled (for a policy bundle). */
export function recordPatchTemplates<T>(fn: () => T): { result: T; entries: PatchTemplateEntry[] } {
  const outer = recording;
  const seen = new Map<string, PatchTemplate | null>();
  recording = seen;
  try {
    return { result: fn(), entries: [...seen] };
  } finally {
    recording = outer;
  }
}

/** Makes entries made by {@link recordPatchTemplates} (in this or a build process) known. */
export function addPatchTemplates(entries: readonly PatchTemplateEntry[]): void {
  for (const [text, template] of entries) {
    if (templates.size >= TEMPLATE_CACHE_SIZE) break;
    templates.set(text, template);
  }
}

function parseTemplate(text: string): PatchTemplate | undefined {
  if (text.includes('$(') || text.includes('\\{{')) return undefined;
  if (!text.includes('{{')) {
    // Nothing to substitute: parse once (a text that does not parse keeps failing on the text path).
    try {
      return { base: parsePatchText(text), slots: [] };
    } catch {
      return undefined;
    }
  }
  if (text[0] === '[') return undefined;
  if (PLACEHOLDER_ANY.test(text)) return undefined;
  PLACEHOLDER_ANY.lastIndex = 0;
  const variables: string[] = [];
  let masked = '';
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf('{{', i);
    if (start < 0) break;
    const end = variableEnd(text, start);
    if (end < 0) return undefined;
    const variable = text.slice(start, end);
    if (/^\{\{\s*-/.test(variable)) return undefined; // shallow: keep the text path's exact behaviour
    masked += text.slice(i, start) + PLACEHOLDER(variables.length);
    variables.push(variable);
    i = end;
  }
  masked += text.slice(i);
  if (masked.includes('}}')) return undefined;
  let doc;
  try {
    doc = parseYaml11Document(masked);
  } catch {
    return undefined;
  }
  if (doc.errors.length > 0 || doc.warnings.length > 0 || !doc.contents) return undefined;
  const slots: Slot[] = [];
  if (!collect(doc.contents as Node, [], false, variables, slots)) return undefined;
  if (slots.length === 0) return undefined;
  let base: JsonValue;
  try {
    base = yaml11Json(doc, masked);
  } catch {
    return undefined;
  }
  return { base, slots };
}

/** End (exclusive) of the variable starting at `start`, nested variables included; -1 if unbalanced. */
function variableEnd(text: string, start: number): number {
  let j = start + 2;
  while (j < text.length) {
    if (text.startsWith('}}', j)) return j + 2;
    if (text.startsWith('{{', j)) {
      j = variableEnd(text, j);
      if (j < 0) return -1;
    } else if (text[j] === '{') {
      const close = text.indexOf('}', j);
      if (close < 0 || text.slice(j + 1, close).includes('{')) return -1;
      j = close + 1;
    } else if (text[j] === '}') {
      return -1;
    } else {
      j++;
    }
  }
  return -1;
}

function collect(node: Node, path: (string | number)[], inFlow: boolean, variables: string[], slots: Slot[]): boolean {
  if (isAlias(node) || node.anchor || node.tag) return false;
  if (isScalar(node)) {
    if (typeof node.value !== 'string' || !/zqamdrvar\d+zq/.test(node.value)) return true;
    // A text that is one variable takes that value's type on the text path: leave it there.
    if (path.length === 0) return false;
    const style = styleOf(node);
    if (!style) return false;
    const pieces = node.value.split(/zqamdrvar(\d+)zq/);
    const parts: string[] = [];
    const vars: string[] = [];
    pieces.forEach((p, k) => (k % 2 === 0 ? parts.push(p) : vars.push(variables[Number(p)])));
    if (style === 'plain' && parts.some((p) => p.includes('\n'))) return false;
    slots.push({ path: [...path], style, inFlow, parts, variables: vars });
    return true;
  }
  if (isSeq(node)) {
    return node.items.every((item, k) => collect(item as Node, [...path, k], inFlow || !!node.flow, variables, slots));
  }
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) return false;
      const key = pair.key as Scalar;
      if (key.anchor || key.tag || (typeof key.value === 'string' && /zqamdrvar\d+zq/.test(key.value))) return false;
      if (key.value === '<<') return false;
      if (pair.value === null) continue;
      if (!collect(pair.value as Node, [...path, String(key.value)], inFlow || !!node.flow, variables, slots)) return false;
    }
    return true;
  }
  return false;
}

function styleOf(node: Scalar): Style | undefined {
  switch (node.type) {
    case Scalar.PLAIN:
      return 'plain';
    case Scalar.QUOTE_DOUBLE:
      return 'double';
    case Scalar.QUOTE_SINGLE:
      return 'single';
    default:
      return undefined; // block scalars: their text rules are not worth reproducing
  }
}

/**
 * The parsed patch for this request, or undefined when the text path must decide. Throws
 * KyvernoRuleError when a variable does not resolve (as the text path would). `path` is where the
 * patch text sits in its document (for `{{@}}` and messages).
 */
export function instantiate(template: PatchTemplate, path: readonly string[], scope: SubstitutionScope): JsonValue | undefined {
  if (template.slots.length === 0) return template.base;
  const result = cloneJson(template.base);
  // An index loop, not for-of: V8 11 steps a for-of over this list through the iterator builtin.
  for (let s = 0; s < template.slots.length; s++) {
    const slot = template.slots[s];
    let text = slot.parts[0];
    let wholeValue: JsonValue | undefined;
    for (let k = 0; k < slot.variables.length; k++) {
      const value = substituteString(nulPrefixed(slot.variables[k]), path, scope);
      // The leading NUL keeps the variable from being "the whole string": it is rendered as text.
      const inserted = (value as string).slice(1);
      const atStart = k === 0 && slot.parts[0] === '';
      const atEnd = k === slot.variables.length - 1 && slot.parts[k + 1] === '';
      if (!safeInsert(inserted, slot, atStart, atEnd)) return undefined;
      if (atStart && atEnd && slot.style === 'plain') wholeValue = jsonInsert(inserted);
      text += inserted + slot.parts[k + 1];
    }
    let value: JsonValue | undefined;
    if (slot.style !== 'plain') value = text;
    else if (wholeValue !== undefined) value = wholeValue;
    else value = resolvePlain(text);
    if (value === undefined) return undefined;
    setAt(result, slot.path, value);
  }
  return result;
}

/** `\u0000` + a variable, one string per variable (a text substituteString sees with every review). */
const prefixed = new Map<string, string>();

function nulPrefixed(variable: string): string {
  let text = prefixed.get(variable);
  if (text === undefined) {
    text = `\u0000${variable}`;
    if (prefixed.size >= 4096) prefixed.clear();
    prefixed.set(variable, text);
  }
  return text;
}

const UNSAFE_START = /^[-?:,[\]{}#&*!|>'"%@`\s]/;

/** Could `inserted` change how the surrounding YAML reads? */
function safeInsert(inserted: string, slot: Slot, atStart: boolean, atEnd: boolean): boolean {
  if (/[\u0000-\u001f\u007f]/.test(inserted)) return false;
  if (slot.style === 'double') return !/["\\]/.test(inserted);
  if (slot.style === 'single') return !inserted.includes("'");
  if (inserted === '' && (atStart || atEnd)) return false;
  if (/: |:$| #/.test(inserted)) return false;
  if (slot.inFlow && /[,[\]{}]/.test(inserted)) {
    // A whole JSON value in a flow collection parses as itself; anything else could split the scalar.
    return atStart && atEnd && jsonInsert(inserted) !== undefined;
  }
  if (atStart && UNSAFE_START.test(inserted)) return atEnd && jsonInsert(inserted) !== undefined;
  if (atEnd && /\s$/.test(inserted)) return false;
  return true;
}

/**
 * A plain scalar that is exactly one variable holding an object or a list: the text path splices the
 * value's JSON into the YAML, which reads back as the value itself (when its numbers are ones YAML 1.1
 * reads as numbers: no exponents).
 */
function jsonInsert(inserted: string): JsonValue | undefined {
  const first = inserted[0];
  if (first !== '{' && first !== '[') return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(inserted) as JsonValue;
  } catch {
    return undefined;
  }
  if (goJsonStringify(value) !== inserted || /\d[eE]/.test(inserted.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) return undefined;
  return value;
}

const NULLS = new Set(['~', 'null', 'Null', 'NULL']);
/** The first characters of the null, boolean and numeric-looking forms resolvePlain tells apart. */
const TYPED_START = new Set([...'~nNyYtTfFoO-+.0123456789'].map((c) => c.charCodeAt(0)));
const TRUES = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const FALSES = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);

/** YAML 1.1 resolution of a plain scalar: the common cases here, numeric-looking ones by the parser. */
function resolvePlain(text: string): JsonValue | undefined {
  // Most slots are paths (`/spec/…`) and names: text whose first character starts none of the forms below.
  if (!TYPED_START.has(text.charCodeAt(0))) return text;
  if (NULLS.has(text)) return null;
  if (TRUES.has(text)) return true;
  if (FALSES.has(text)) return false;
  if (/^[-+]?(?:0|[1-9]\d*)$/.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  if (/^[-+.\d]/.test(text)) {
    // Octal, hex, floats, underscores, .inf …: let the YAML reader decide.
    try {
      const v = parseYaml11(text);
      return typeof v === 'object' && v !== null ? undefined : v;
    } catch {
      return undefined;
    }
  }
  return text;
}

/** Sets a value inside the private copy `instantiate` made (paths come from the template's own walk). */
function setAt(target: JsonValue, path: readonly (string | number)[], value: JsonValue): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) node = (node as Record<string | number, JsonValue>)[path[i]];
  const last = path[path.length - 1];
  if (Array.isArray(node)) node[last as number] = value;
  else setOwn(node as JsonObject, String(last), value);
}
