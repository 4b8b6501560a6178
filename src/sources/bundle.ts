/**
 * The bundled policy set, made at build time: `bundlePolicies(files)` parses and validates the files of
 * `policies/` and, when every document is valid, returns a bundle of already-parsed documents (JSON text,
 * read with `JSON.parse` at cold start — no YAML parser runs), with the parsed templates of the Kyverno
 * patch texts (YAML too). Any problem refuses the bundle with the document, field and message, so an
 * invalid bundled policy fails the build.
 */
import { isFloatLiteral, type JsonValue } from '../json/index.js';
import { buildPolicySetWithTemplates, parseDocuments, preloadPatchTemplates, type PatchTemplateEntry, type PolicySetCounts, type Problem, type SourceDocument } from '../policyset/index.js';

export const BUNDLE_FORMAT = 'amender.policy-bundle/v1';

export interface BundledFile {
  /** The file's path below `policies/` (what problems and /readyz call it, prefixed `bundled:`). */
  name: string;
  /** A digest of the file's text, so a refresh of the bundled source changes nothing. */
  version: string;
  /** JSON text of `[{ index, item?, value }]`; integral floats are written `1.0` so CEL still sees a double. */
  documents: string;
}

export interface PolicyBundle {
  format: typeof BUNDLE_FORMAT;
  files: BundledFile[];
  /** JSON text of the Kyverno patch templates the files compile to (`[text, template | null][]`). */
  patchTemplates?: string;
}

export type BundleResult =
  | { ok: true; bundle: PolicyBundle; counts: PolicySetCounts }
  | { ok: false; problems: readonly Problem[] };

/** Serializes JSON, writing integral numbers the source wrote as floats with a `.0`. */
export function stringifyJson(value: JsonValue): string {
  const number = (container: object, key: string | number, n: number): string => {
    const text = JSON.stringify(n);
    if (!isFloatLiteral(container, key) || !Number.isInteger(n) || /[.eE]/.test(text)) return text;
    return Object.is(n, -0) ? '-0.0' : `${text}.0`;
  };
  const write = (v: JsonValue, container: object | undefined, key: string | number): string => {
    if (typeof v === 'number') return container ? number(container, key, v) : JSON.stringify(v);
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map((item, i) => write(item, v, i)).join(',')}]`;
    return `{${Object.keys(v).map((k) => `${JSON.stringify(k)}:${write(v[k], v, k)}`).join(',')}}`;
  };
  return write(value, undefined, 0);
}

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return `sha256:${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function bundledLabel(name: string): string {
  return `bundled:${name}`;
}

/** Validates `files` as one policy set and bundles them; any problem (even a kept one) refuses the bundle. */
export async function bundlePolicies(files: readonly { name: string; text: string }[]): Promise<BundleResult> {
  const sorted = [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const parsed = sorted.map((f) => parseDocuments(bundledLabel(f.name), f.text));
  const { set, patchTemplates: entries } = buildPolicySetWithTemplates(parsed);
  if (set.problems.length > 0) return { ok: false, problems: set.problems };
  const bundled = await Promise.all(
    sorted.map(async (file, i) => {
      const docs = parsed[i].documents.map((d) => ({ index: d.index, ...(d.item !== undefined ? { item: d.item } : {}), value: d.value }) as unknown as JsonValue);
      return { name: file.name, version: await digest(file.text), documents: stringifyJson(docs) };
    }),
  );
  const bundle: PolicyBundle = { format: BUNDLE_FORMAT, files: bundled };
  if (entries.length > 0) bundle.patchTemplates = stringifyJson(entries as unknown as JsonValue);
  return { ok: true, bundle, counts: set.counts };
}

/** One line per problem, for the build's error output. */
export function formatBundleProblems(problems: readonly Problem[]): string {
  return problems
    .map((p) => {
      const where = `${p.source}#${p.index}${p.item !== undefined ? `.items[${p.item}]` : ''}`;
      const what = p.kind || p.name ? ` ${p.kind ?? '?'}/${p.name ?? '?'}` : '';
      return `${where}${what}: ${p.path ? `${p.path}: ` : ''}${p.message.trimEnd().split('\n')[0]}`;
    })
    .join('\n');
}

/** Reads a bundle back into documents (what the bundled source serves). */
export function bundledDocuments(file: BundledFile, parse: (text: string) => JsonValue): SourceDocument[] {
  const entries = parse(file.documents);
  if (!Array.isArray(entries)) throw new Error(`bundled file ${file.name}: not a list of documents`);
  return entries.map((e) => {
    const entry = e as { index: number; item?: number; value: SourceDocument['value'] };
    return { source: bundledLabel(file.name), index: entry.index, ...(entry.item !== undefined ? { item: entry.item } : {}), value: entry.value };
  });
}

/** Makes the bundle's Kyverno patch templates known, so compiling its policies parses no patch text. */
export function loadBundledPatchTemplates(bundle: PolicyBundle, parse: (text: string) => JsonValue): void {
  if (bundle.patchTemplates === undefined) return;
  const entries = parse(bundle.patchTemplates);
  const valid = Array.isArray(entries) && entries.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'object');
  if (!valid) throw new Error('the bundle\'s patch templates are not a list of [text, template] entries');
  preloadPatchTemplates(entries as unknown as PatchTemplateEntry[]);
}
