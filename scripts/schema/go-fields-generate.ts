/**
 * Regenerates src/schema/data/go-fields.ts: for every field of the built-in table (k8s-schema.json), what
 * its Go struct field is — the Go kind of its type and whether its json tag says `omitempty`. The schema
 * table (OpenAPI) does not carry these, and kube-apiserver's round trip of a MutatingAdmissionPolicy's
 * result through the kind's Go type depends on them (src/schema/go-round-trip.ts, from-unstructured.ts,
 * strict.ts): an `omitempty` field's empty value is left out when encoded, an int32 overflows, a []byte
 * is base64.
 *
 * Input: the Go sources of the type packages at the commits k8s-schema.json names (`source`), read with
 * `git show <commit>:<path>` from clones (bare or not) that have those commits:
 *
 *   GO_API=<k8s.io/api> GO_APIMACHINERY=<k8s.io/apimachinery> GO_APIEXTENSIONS=<k8s.io/apiextensions-apiserver> \
 *   GO_AGGREGATOR=<k8s.io/kube-aggregator> npx tsx scripts/schema/go-fields-generate.ts
 *
 * Only type declarations and json tags are read
 * (`type X struct {…}`, `type X string`, …): facts, no Go code is kept. test/schema/go-fields.test.ts
 * checks the committed file covers every field of the table; with the same variables set it also checks
 * the file is exactly this script's output.
 *
 * Field code, one letter, upper case when the tag lacks `omitempty`:
 *   s string   b bool   i int32   l int64/int   u unsigned   f float   y []byte
 *   a slice    e []int32    g []int64    m map    n map whose values are []byte
 *   v struct value    j free-form JSON (RawExtension, apiextensions JSON)
 *   p pointer (to anything but an integer)   q *int32   r *int64
 * A line per type: `<short id>\t<code per field, in the table's field order>`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shortId, type SourceSchema } from './encode.js';

const here = dirname(fileURLToPath(import.meta.url));
const SOURCE_PATH = join(here, 'k8s-schema.json');
export const GO_FIELDS_OUTPUT_PATH = join(here, '..', '..', 'src', 'schema', 'data', 'go-fields.ts');

/** Go module → where its clone is (environment variable) and the OpenAPI id prefix of its packages (the rest is the package path). */
const MODULES = [
  { module: 'k8s.io/api', env: 'GO_API', idPrefix: 'io.k8s.api.' },
  { module: 'k8s.io/apimachinery', env: 'GO_APIMACHINERY', idPrefix: 'io.k8s.apimachinery.' },
  { module: 'k8s.io/apiextensions-apiserver', env: 'GO_APIEXTENSIONS', idPrefix: 'io.k8s.apiextensions-apiserver.' },
  { module: 'k8s.io/kube-aggregator', env: 'GO_AGGREGATOR', idPrefix: 'io.k8s.kube-aggregator.' },
] as const;

type GoType =
  | { kind: 'basic'; name: string }
  | { kind: 'ptr'; elem: GoType }
  | { kind: 'slice'; elem: GoType }
  | { kind: 'map'; elem: GoType }
  | { kind: 'named'; pkg: string; name: string }
  | { kind: 'struct'; fields: GoField[] }
  | { kind: 'interface' };

interface GoField {
  name: string; // Go field name ('' for an embedded one: then `type` names it)
  type: GoType;
  json: string | undefined; // the json tag's name part; undefined when there is no tag
  omitempty: boolean;
}

interface GoPackage {
  path: string; // import path
  types: Map<string, GoType>;
  /** Per file, import alias → path; a type expression is resolved in its file's imports. */
  imports: Map<string, Map<string, string>>;
  fileOf: Map<string, string>;
}

const BASIC = new Set([
  'string', 'bool', 'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64',
  'float32', 'float64', 'byte', 'rune', 'any',
]);

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

export class Sources {
  private readonly packages = new Map<string, GoPackage | null>();
  /** The commit of each repository, as k8s-schema.json's `source` names them (`kubernetes/api`: sha). */
  constructor(private readonly revs: Record<string, string>) {}

  /** Parsed package by import path, or null when its module is not given. */
  pkg(path: string): GoPackage | null {
    let p = this.packages.get(path);
    if (p === undefined) {
      p = this.load(path);
      this.packages.set(path, p);
    }
    return p;
  }

  private load(path: string): GoPackage | null {
    const mod = MODULES.find((m) => path === m.module || path.startsWith(m.module + '/'));
    if (!mod) return null;
    const repo = process.env[mod.env];
    if (!repo) throw new Error(`set ${mod.env} to a clone of ${mod.module}`);
    const rev = this.revs[`kubernetes/${mod.module.slice('k8s.io/'.length)}`];
    if (!rev) throw new Error(`k8s-schema.json names no commit of ${mod.module}`);
    const dir = path.slice(mod.module.length + 1);
    const files = git(repo, 'ls-tree', '--name-only', `${rev}:${dir}`)
      .split('\n')
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'));
    const pkg: GoPackage = { path, types: new Map(), imports: new Map(), fileOf: new Map() };
    for (const f of files) parseFile(pkg, f, git(repo, 'show', `${rev}:${dir}/${f}`));
    return pkg;
  }
}

/** Top-level `type` declarations and the file's imports (enough Go for API type files). */
function parseFile(pkg: GoPackage, file: string, text: string): void {
  const src = stripComments(text);
  const imports = new Map<string, string>();
  for (const m of src.matchAll(/^import\s*\(([\s\S]*?)\)/gm)) for (const line of m[1].split('\n')) addImport(imports, line);
  for (const m of src.matchAll(/^import\s+([^(\n][^\n]*)$/gm)) addImport(imports, m[1]);
  pkg.imports.set(file, imports);
  const lexer = new Lexer(src);
  while (!lexer.done()) {
    const tok = lexer.next();
    if (tok !== 'type' || !lexer.atLineStartOfPrev()) continue;
    if (lexer.peek() === '(') {
      lexer.next();
      while (lexer.peek() !== ')' && !lexer.done()) declare(pkg, file, lexer);
      lexer.next();
    } else declare(pkg, file, lexer);
  }
}

function declare(pkg: GoPackage, file: string, lexer: Lexer): void {
  const name = lexer.next();
  if (lexer.peek() === '[' && lexer.peekSecond() !== ']' && !/^\d/.test(lexer.peekSecond())) return; // generic type: not an API type
  if (lexer.peek() === '=') lexer.next(); // alias
  const t = parseType(lexer);
  pkg.types.set(name, t);
  pkg.fileOf.set(name, file);
}

function addImport(imports: Map<string, string>, line: string): void {
  const m = /^\s*(?:([A-Za-z_][\w]*|\.)\s+)?"([^"]+)"/.exec(line);
  if (!m) return;
  const path = m[2];
  imports.set(m[1] ?? path.split('/').pop()!, path);
}

function stripComments(text: string): string {
  // Keeps string and raw-string literals (tags) intact.
  let out = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      out += ' ';
    } else if (c === '`' || c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += c !== '`' && text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Tokens: identifiers (with dots), punctuation, string literals; newlines kept as ';' after a field. */
class Lexer {
  private readonly toks: { t: string; lineStart: boolean }[] = [];
  private pos = 0;
  constructor(src: string) {
    const re = /(`[^`]*`|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z_][\w.]*|\d[\w.]*|\n|\S)/g;
    let lineStart = true;
    for (const m of src.matchAll(re)) {
      if (m[0] === '\n') {
        this.toks.push({ t: '\n', lineStart: false });
        lineStart = true;
        continue;
      }
      this.toks.push({ t: m[0], lineStart });
      lineStart = false;
    }
  }
  done(): boolean {
    this.skipNewlines();
    return this.pos >= this.toks.length;
  }
  private skipNewlines(): void {
    while (this.pos < this.toks.length && this.toks[this.pos].t === '\n') this.pos++;
  }
  peek(): string {
    this.skipNewlines();
    return this.toks[this.pos]?.t ?? '';
  }
  peekSecond(): string {
    this.skipNewlines();
    let i = this.pos + 1;
    while (this.toks[i]?.t === '\n') i++;
    return this.toks[i]?.t ?? '';
  }
  /** Whether the next token on this line is a newline (or the end). */
  atLineEnd(): boolean {
    const t = this.toks[this.pos]?.t;
    return t === undefined || t === '\n';
  }
  next(): string {
    this.skipNewlines();
    return this.toks[this.pos++]?.t ?? '';
  }
  /** Whether the token just read began its line. */
  atLineStartOfPrev(): boolean {
    return this.toks[this.pos - 1]?.lineStart ?? false;
  }
  /** Skips to the end of the line, past balanced brackets. */
  skipLine(): void {
    let depth = 0;
    while (this.pos < this.toks.length) {
      const t = this.toks[this.pos].t;
      if (t === '\n' && depth === 0) return;
      if (t === '(' || t === '{' || t === '[') depth++;
      if (t === ')' || t === '}' || t === ']') depth--;
      this.pos++;
    }
  }
  /** The raw next token including newlines. */
  rawPeek(): string {
    return this.toks[this.pos]?.t ?? '';
  }
}

function parseType(lx: Lexer): GoType {
  const t = lx.next();
  if (t === '*') return { kind: 'ptr', elem: parseType(lx) };
  if (t === '[') {
    if (lx.peek() !== ']') lx.next(); // array length
    lx.next();
    return { kind: 'slice', elem: parseType(lx) };
  }
  if (t === 'map') {
    lx.next(); // [
    parseType(lx);
    lx.next(); // ]
    return { kind: 'map', elem: parseType(lx) };
  }
  if (t === 'struct') return parseStruct(lx);
  if (t === 'interface') {
    let depth = 0;
    do {
      const x = lx.next();
      if (x === '{') depth++;
      if (x === '}') depth--;
    } while (depth > 0);
    return { kind: 'interface' };
  }
  if (t === 'func') {
    lx.skipLine(); // a function type: never an API field's
    return { kind: 'interface' };
  }
  const dot = t.indexOf('.');
  if (dot > 0) return { kind: 'named', pkg: t.slice(0, dot), name: t.slice(dot + 1) };
  if (BASIC.has(t)) return { kind: 'basic', name: t };
  return { kind: 'named', pkg: '', name: t };
}

function parseStruct(lx: Lexer): GoType {
  if (lx.next() !== '{') throw new Error('struct without {');
  const fields: GoField[] = [];
  while (lx.peek() !== '}') {
    // A field line: `Name Type tag`, `Name1, Name2 Type`, or an embedded `Type tag` / `*Type tag`.
    const first = lx.peek();
    let names: string[] = [];
    let type: GoType;
    const save = lx.next();
    if (first === '*' || lx.atLineEnd() || lx.rawPeek().startsWith('`') || lx.rawPeek().startsWith('"')) {
      // embedded
      type = save === '*' ? { kind: 'ptr', elem: parseType(lx) } : parseTypeFromToken(save, lx);
      names = [''];
    } else {
      names = [save];
      while (lx.peek() === ',') {
        lx.next();
        names.push(lx.next());
      }
      type = parseType(lx);
    }
    let tag = '';
    if (!lx.atLineEnd() && (lx.rawPeek().startsWith('`') || lx.rawPeek().startsWith('"'))) tag = lx.next();
    const json = /json:"([^"]*)"/.exec(tag)?.[1];
    const parts = json?.split(',');
    for (const name of names) {
      fields.push({ name, type, json: parts?.[0], omitempty: parts?.slice(1).includes('omitempty') ?? false });
    }
  }
  lx.next();
  return { kind: 'struct', fields };
}

function parseTypeFromToken(t: string, _lx: Lexer): GoType {
  const dot = t.indexOf('.');
  if (dot > 0) return { kind: 'named', pkg: t.slice(0, dot), name: t.slice(dot + 1) };
  return { kind: 'named', pkg: '', name: t };
}

interface Resolved {
  /** The type after following named types, and the package it was declared in (for its own names). */
  type: GoType;
  pkg: GoPackage;
  file: string;
  /** Named types with their own JSON form: kept as a struct value `v` whatever their underlying type. */
  marshaler?: string;
}

/** Types that marshal themselves: their underlying type says nothing of their JSON. */
const SELF_MARSHALED = new Set([
  'k8s.io/apimachinery/pkg/apis/meta/v1.Time',
  'k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime',
  'k8s.io/apimachinery/pkg/apis/meta/v1.Duration',
  'k8s.io/apimachinery/pkg/api/resource.Quantity',
  'k8s.io/apimachinery/pkg/util/intstr.IntOrString',
  'k8s.io/apimachinery/pkg/runtime.RawExtension',
  'k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray',
]);

function resolveNamed(src: Sources, t: GoType, pkg: GoPackage, file: string): Resolved {
  for (let depth = 0; t.kind === 'named'; depth++) {
    if (depth > 20) throw new Error('named type loop');
    let target = pkg;
    if (t.pkg !== '') {
      const path = pkg.imports.get(file)?.get(t.pkg);
      if (!path) throw new Error(`${pkg.path}/${file}: unknown import ${t.pkg}`);
      const p = src.pkg(path);
      if (!p) return { type: { kind: 'interface' }, pkg, file, marshaler: `${path}.${t.name}` };
      target = p;
    }
    const full = `${target.path}.${t.name}`;
    if (SELF_MARSHALED.has(full)) return { type: t, pkg: target, file, marshaler: full };
    const decl = target.types.get(t.name);
    if (!decl) throw new Error(`unknown type ${full}`);
    file = target.fileOf.get(t.name)!;
    pkg = target;
    t = decl;
  }
  return { type: t, pkg, file };
}

/** The one-letter code of a field's type (lower case; the caller upper-cases it without omitempty). */
function code(src: Sources, t: GoType, pkg: GoPackage, file: string): string {
  const r = resolveNamed(src, t, pkg, file);
  if (r.marshaler) return r.marshaler.endsWith('apiextensions/v1.JSON') || r.marshaler.endsWith('.RawExtension') ? 'j' : 'v';
  const u = r.type;
  switch (u.kind) {
    case 'basic':
      return basicCode(u.name);
    case 'ptr': {
      const e = resolveNamed(src, u.elem, r.pkg, r.file);
      if (!e.marshaler && e.type.kind === 'basic') {
        const b = basicCode(e.type.name);
        if (b === 'i') return 'q';
        if (b === 'l') return 'r';
      }
      return 'p';
    }
    case 'slice': {
      const e = resolveNamed(src, u.elem, r.pkg, r.file);
      const b = !e.marshaler && e.type.kind === 'basic' ? basicCode(e.type.name) : '';
      return b === 'u' ? 'y' : b === 'i' ? 'e' : b === 'l' ? 'g' : 'a';
    }
    case 'map': {
      const e = resolveNamed(src, u.elem, r.pkg, r.file);
      if (!e.marshaler && e.type.kind === 'slice') {
        const ee = resolveNamed(src, e.type.elem, e.pkg, e.file);
        if (!ee.marshaler && ee.type.kind === 'basic' && (ee.type.name === 'byte' || ee.type.name === 'uint8')) return 'n';
      }
      return 'm';
    }
    case 'struct':
      return 'v';
    case 'interface':
      return 'j';
    default:
      throw new Error('unresolved type');
  }
}

function basicCode(name: string): string {
  switch (name) {
    case 'string':
      return 's';
    case 'bool':
      return 'b';
    case 'int32':
      return 'i';
    case 'int':
    case 'int64':
      return 'l';
    case 'uint':
    case 'uint8':
    case 'uint16':
    case 'uint32':
    case 'uint64':
    case 'byte':
      return 'u';
    case 'float32':
    case 'float64':
      return 'f';
    default:
      throw new Error(`basic type ${name} in an API field`);
  }
}

/** json name → field code, encoding/json's view (embedded structs without a json name are inlined). */
function jsonFields(src: Sources, t: GoType, pkg: GoPackage, file: string, out = new Map<string, string>()): Map<string, string> {
  const r = resolveNamed(src, t, pkg, file);
  if (r.type.kind !== 'struct') throw new Error(`not a struct: ${JSON.stringify(t)}`);
  for (const f of r.type.fields) {
    if (f.json === '-') continue;
    if (f.name === '' && !f.json) {
      const inner = f.type.kind === 'ptr' ? f.type.elem : f.type;
      jsonFields(src, inner, r.pkg, r.file, out);
      continue;
    }
    const name = f.json || f.name || (f.type.kind === 'named' ? f.type.name : '');
    const c = code(src, f.type, r.pkg, r.file);
    out.set(name, f.omitempty ? c : c.toUpperCase());
  }
  return out;
}

export function generateGoFields(): string {
  const source = JSON.parse(readFileSync(SOURCE_PATH, 'utf8')) as SourceSchema;
  const src = new Sources(source.source);
  const lines: string[] = [];
  const missing: string[] = [];
  for (const id of Object.keys(source.types).sort()) {
    const mod = MODULES.find((m) => id.startsWith(m.idPrefix))!;
    const rest = id.slice(mod.idPrefix.length);
    const dot = rest.lastIndexOf('.');
    const path = `${mod.module}/${rest.slice(0, dot).replace(/\./g, '/')}`;
    const pkg = src.pkg(path)!;
    const name = rest.slice(dot + 1);
    const file = pkg.fileOf.get(name);
    if (!file) throw new Error(`${id}: no Go type ${name} in ${path}`);
    const fields = jsonFields(src, { kind: 'named', pkg: '', name }, pkg, file);
    let codes = '';
    for (const f of Object.keys(source.types[id].fields)) {
      const c = fields.get(f);
      if (c === undefined) {
        missing.push(`${id}.${f}`);
        codes += '?';
      } else codes += c;
    }
    lines.push(`${shortId(id)}\t${codes}`);
  }
  if (missing.length) throw new Error(`fields without a Go field: ${missing.join(', ')}`);
  return [
    '// GENERATED by scripts/schema/go-fields-generate.ts from the Go type declarations of the commits',
    `// scripts/schema/k8s-schema.json names — do not edit. Format: the script's header.`,
    '',
    '/** One line per type: "<short type id>\\t<one code per field, in the order of data/builtin.ts>". */',
    `export const GO_FIELDS_TEXT = ${JSON.stringify(lines.join('\n'))};`,
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = generateGoFields();
  writeFileSync(GO_FIELDS_OUTPUT_PATH, out);
  console.log(`wrote ${GO_FIELDS_OUTPUT_PATH} (${out.length} bytes)`);
}
