/**
 * Build-time encoder: turns the full merge-facts table (`k8s-schema.json`, see its README in
 * shared/k8s-schema) into the compact per-type strings that `src/schema/builtin.ts` decodes lazily.
 * Pure function (no I/O) so the test suite can re-run it and compare with the committed file.
 *
 * One string per type:   ["!" (atomic struct)] field (";" field)*
 *   field := name ":" code
 *   code  := type ["|" patchStrategy ["|" patchMergeKey]] ["=" JSON default]
 *   type  := "s" string | "i" integer | "n" number | "b" boolean | "u" untyped
 *          | "t" untyped date-time | "q" untyped quantity | "o" untyped int-or-string
 *          | "x" free-form (deduced) | "X" free-form atomic (RawExtension)
 *          | "@" id ["!a" | "!g"]                              (ref, field-level atomic/granular override)
 *          | "L" ("a"|"s"|"m") ["(" key {"," key} ")"] type    (list: atomic | set | map with keys)
 *          | "M" ("a"|"g") type                                (map: atomic | granular)
 * Type ids are shortened with PREFIXES (`m:ObjectMeta` = io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta).
 */

export interface SourceFieldType {
  scalar?: string;
  format?: string;
  ref?: string;
  elementRelationship?: string;
  list?: SourceFieldType;
  listType?: string;
  keys?: string[];
  map?: SourceFieldType;
  mapType?: string;
  preserveUnknown?: boolean;
  patchStrategy?: string;
  patchMergeKey?: string;
  default?: unknown;
}

export interface SourceSchema {
  source: Record<string, string>;
  kinds: Record<string, string>;
  types: Record<string, { fields: Record<string, SourceFieldType>; elementRelationship?: string; inlined?: string[] }>;
}

/** Longest prefixes first: `r:` is a prefix of `m:`'s expansion. */
export const PREFIXES: ReadonlyArray<readonly [string, string]> = [
  ['m:', 'io.k8s.apimachinery.pkg.apis.meta.v1.'],
  ['x:', 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.'],
  ['a:', 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.'],
  ['r:', 'io.k8s.apimachinery.pkg.'],
  ['', 'io.k8s.api.'],
];

export function shortId(id: string): string {
  for (const [short, long] of PREFIXES) if (id.startsWith(long)) return short + id.slice(long.length);
  throw new Error(`type id without a known prefix: ${id}`);
}

const SCALAR_CODES: Record<string, string> = { string: 's', integer: 'i', number: 'n', boolean: 'b', untyped: 'u' };
const UNTYPED_FORMATS: Record<string, string> = { 'date-time': 't', quantity: 'q', 'int-or-string': 'o' };
const NAME = /^[A-Za-z0-9_$-]+$/;

function encodeType(ft: SourceFieldType, where: string): string {
  if (ft.scalar !== undefined) {
    if (ft.format !== undefined) {
      const code = ft.scalar === 'untyped' ? UNTYPED_FORMATS[ft.format] : undefined;
      if (!code) throw new Error(`${where}: unsupported scalar format ${ft.scalar}/${ft.format}`);
      return code;
    }
    const code = SCALAR_CODES[ft.scalar];
    if (!code) throw new Error(`${where}: unknown scalar ${ft.scalar}`);
    return code;
  }
  if (ft.ref !== undefined) {
    const rel = ft.elementRelationship === 'atomic' ? '!a' : ft.elementRelationship === 'separable' ? '!g' : '';
    if (ft.elementRelationship !== undefined && !rel) throw new Error(`${where}: bad relationship ${ft.elementRelationship}`);
    return '@' + shortId(ft.ref) + rel;
  }
  if (ft.list !== undefined) {
    const lt = { atomic: 'a', set: 's', map: 'm' }[ft.listType ?? ''];
    if (!lt) throw new Error(`${where}: bad listType ${ft.listType}`);
    const keys = ft.keys && ft.keys.length > 0 ? `(${ft.keys.map((k) => checkName(k, where)).join(',')})` : '';
    if (ft.listType === 'map' && !keys) throw new Error(`${where}: list map without keys`);
    return 'L' + lt + keys + encodeType(nested(ft.list, where), where + '[]');
  }
  if (ft.map !== undefined) {
    const mt = { atomic: 'a', granular: 'g' }[ft.mapType ?? ''];
    if (!mt) throw new Error(`${where}: bad mapType ${ft.mapType}`);
    return 'M' + mt + encodeType(nested(ft.map, where), where + '{}');
  }
  if (ft.preserveUnknown) {
    if (ft.elementRelationship === 'atomic') return 'X';
    if (ft.elementRelationship !== undefined) throw new Error(`${where}: bad relationship ${ft.elementRelationship}`);
    return 'x';
  }
  throw new Error(`${where}: unknown field type ${JSON.stringify(ft)}`);
}

/** Element types of lists and maps never carry field-level extras; refuse data that would be lost. */
function nested(ft: SourceFieldType, where: string): SourceFieldType {
  if (ft.patchStrategy !== undefined || ft.patchMergeKey !== undefined || ft.default !== undefined) {
    throw new Error(`${where}: element type with field-level attributes`);
  }
  return ft;
}

function checkName(name: string, where: string): string {
  if (!NAME.test(name)) throw new Error(`${where}: name ${JSON.stringify(name)} cannot be encoded`);
  return name;
}

export function encodeField(ft: SourceFieldType, where: string): string {
  let code = encodeType(ft, where);
  if (ft.patchStrategy !== undefined || ft.patchMergeKey !== undefined) {
    code += '|' + (ft.patchStrategy ?? '');
    if (ft.patchMergeKey !== undefined) code += '|' + checkName(ft.patchMergeKey, where);
  }
  if (ft.default !== undefined) {
    const json = JSON.stringify(ft.default);
    if (json.includes(';')) throw new Error(`${where}: default ${json} cannot be encoded`);
    code += '=' + json;
  }
  return code;
}

export interface EncodedSchema {
  source: Record<string, string>;
  kinds: Record<string, string>;
  types: Record<string, string>;
}

export function encodeSchema(src: SourceSchema): EncodedSchema {
  const kinds: Record<string, string> = {};
  for (const gvk of Object.keys(src.kinds).sort()) kinds[gvk] = shortId(src.kinds[gvk]);
  const types: Record<string, string> = {};
  for (const id of Object.keys(src.types).sort()) {
    const t = src.types[id];
    if (t.elementRelationship !== undefined && t.elementRelationship !== 'atomic') {
      throw new Error(`${id}: unexpected struct relationship ${t.elementRelationship}`);
    }
    const fields = Object.entries(t.fields).map(([name, ft]) => checkName(name, id) + ':' + encodeField(ft, `${id}.${name}`));
    types[shortId(id)] = (t.elementRelationship === 'atomic' ? '!' : '') + fields.join(';');
  }
  return { source: src.source, kinds, types };
}

/** The text of `src/schema/data/builtin.ts`. */
export function renderModule(enc: EncodedSchema, sourceSha256: string): string {
  const lines: string[] = [];
  lines.push('// GENERATED by scripts/schema/generate.ts from scripts/schema/k8s-schema.json — do not edit.');
  lines.push(`// Source sha256: ${sourceSha256}. Format: scripts/schema/encode.ts.`);
  lines.push('');
  lines.push(`export const SOURCE: Readonly<Record<string, string>> = ${JSON.stringify(enc.source)};`);
  lines.push('');
  lines.push(`export const PREFIXES: ReadonlyArray<readonly [string, string]> = ${JSON.stringify(PREFIXES)};`);
  lines.push('');
  lines.push('/** "<group>/<version>/<Kind>" (core group = "") -> short type id. */');
  lines.push('export const KINDS: Readonly<Record<string, string>> = {');
  for (const [k, v] of Object.entries(enc.kinds)) lines.push(`  ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
  lines.push('};');
  lines.push('');
  // One string rather than an object literal: cheaper to load; indexed on first use, types decoded one by one.
  lines.push('/** One line per type: "<short type id>\\t<encoded fields>". */');
  const text = Object.entries(enc.types)
    .map(([k, v]) => {
      if (k.includes('\t') || k.includes('\n') || v.includes('\t') || v.includes('\n')) throw new Error(`${k}: cannot be encoded`);
      return `${k}\t${v}`;
    })
    .join('\n');
  lines.push(`export const TYPES_TEXT = ${JSON.stringify(text)};`);
  lines.push('');
  return lines.join('\n');
}
