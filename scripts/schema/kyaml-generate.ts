/**
 * Regenerates src/schema/data/kyaml.ts: where Kyverno's strategic merge (kustomize kyaml, whose built-in
 * OpenAPI data is Kubernetes v1.21.2 and which Kyverno never replaces) sees other merge facts than
 * Amender's current built-in table (scripts/schema/k8s-schema.json, Kubernetes 1.37).
 *
 * Input: kyaml's compiled v1.21.2 bundle, not committed (130 KB gzip). Get it from kubernetes-sigs/kustomize
 * (commit 12f9e6391464b3ad9dd3fe8182049dc1b1772990 or later; the bundle records the sha256 of its source,
 * 5d171b55…6bc2, which is exactly kyaml v0.21.1's kyaml/openapi/kubernetesapi/v1_21_2/swagger.pb):
 *
 *   git -C kustomize show 12f9e6391464b3ad9dd3fe8182049dc1b1772990:kyaml/openapi/kubernetesapi/data/kubernetes-openapi-union-v1.21.2.bundle-v1.json.gz > /tmp/kyaml-bundle.json.gz
 *   npx tsx scripts/schema/kyaml-generate.ts /tmp/kyaml-bundle.json.gz
 *
 * What it derives (see src/schema/kyaml.ts for how the merge reads it):
 * - KINDS: the current built-in kinds that kyaml v0.21.1 also knows. kyaml indexes a definition under every
 *   group/version/kind of its `x-kubernetes-group-version-kind` (openapi.go AddDefinitions) and
 *   SchemaForResourceType finds a resource's schema by that apiVersion+kind only.
 * - TYPES: walking each shared kind's current type and its 1.21.2 definition side by side (kyaml's
 *   ResourceSchema.Field / Elements, `$ref`s resolved as they do), for each current type the fields
 *   that are not scalars and differ: `-` absent from 1.21.2 (kyaml has no schema for the field, so its
 *   lists are replaced and nothing below it is typed), `r` a list kyaml replaces, `m` a list kyaml merges as a
 *   union, `m(k1,k2)` a list kyaml merges by those keys (x-kubernetes-list-map-keys, else
 *   x-kubernetes-patch-merge-key: PatchStrategyAndKeyList).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { shortId, type SourceFieldType, type SourceSchema } from './encode.js';

const here = dirname(fileURLToPath(import.meta.url));
const CURRENT_PATH = join(here, 'k8s-schema.json');
export const KYAML_OUTPUT_PATH = join(here, '..', '..', 'src', 'schema', 'data', 'kyaml.ts');

interface OpenApiSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-group-version-kind'?: { group?: string; version: string; kind: string }[];
}

interface Bundle {
  sources: { kubernetesVersion: string; sha256: string }[];
  definitions: Record<string, OpenApiSchema>;
}

/** What a merge does with a list: undefined = replace, else merge with these keys ([] = union of scalars). */
type Facts = readonly string[] | undefined;

function currentFacts(ft: SourceFieldType): Facts {
  if (!ft.patchStrategy || !ft.patchStrategy.split(',').includes('merge')) return undefined;
  if (ft.listType === 'map' && ft.keys && ft.keys.length > 0) return ft.keys;
  return ft.patchMergeKey ? [ft.patchMergeKey] : [];
}

/** kyaml: IsAssociative (PatchStrategyAndKey) and PatchStrategyAndKeyList. */
function kyamlFacts(s: OpenApiSchema): Facts {
  const ps = s['x-kubernetes-patch-strategy'];
  if (!ps || !ps.split(',').includes('merge')) return undefined;
  const listKeys = s['x-kubernetes-list-map-keys'];
  if (listKeys) return listKeys;
  const mk = s['x-kubernetes-patch-merge-key'];
  return mk ? [mk] : [];
}

const sameFacts = (a: Facts, b: Facts) => (a === undefined || b === undefined ? a === b : a.length === b.length && a.every((k, i) => k === b[i]));
const factsCode = (f: Facts) => (f === undefined ? 'r' : f.length === 0 ? 'm' : `m(${f.join(',')})`);

export function generateKyaml(bundleGz: Buffer): string {
  const currentText = readFileSync(CURRENT_PATH, 'utf8');
  const current = JSON.parse(currentText) as SourceSchema;
  const bundle = JSON.parse(gunzipSync(bundleGz).toString('utf8')) as Bundle;
  const defs = bundle.definitions;

  /** kyaml's `for s.Ref != "" { s = Resolve(s.Ref) }`: the referenced schema replaces the field's own. */
  const deref = (s: OpenApiSchema | undefined): OpenApiSchema | undefined => {
    let at = s;
    for (let i = 0; at?.$ref !== undefined; i++) {
      if (i > 100) throw new Error(`ref loop at ${at.$ref}`);
      at = defs[at.$ref.replace('#/definitions/', '')];
    }
    return at;
  };
  /** ResourceSchema.Field: a property, else the additionalProperties schema. */
  const field = (s: OpenApiSchema, name: string) =>
    deref(s.properties?.[name] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined));
  /** ResourceSchema.Elements: only for `type: [array]`. */
  const elements = (s: OpenApiSchema) => {
    const t = typeof s.type === 'string' ? [s.type] : s.type;
    return t?.length === 1 && t[0] === 'array' && s.items ? deref(s.items) : undefined;
  };

  // Kinds: kyaml's index (AddDefinitions) ∩ the current built-in kinds.
  const kyamlKinds = new Map<string, OpenApiSchema>();
  for (const name of Object.keys(defs)) {
    for (const gvk of defs[name]['x-kubernetes-group-version-kind'] ?? []) kyamlKinds.set(`${gvk.group ?? ''}/${gvk.version}/${gvk.kind}`, defs[name]);
  }
  const kinds = Object.keys(current.kinds).filter((k) => kyamlKinds.has(k)).sort();

  // Types: the current struct types reached from the shared kinds, each with the 1.21.2 schema kyaml has there.
  const overrides = new Map<string, Map<string, string>>();
  const seen = new Map<string, OpenApiSchema>();
  const problems: string[] = [];

  const visitStruct = (id: string, ky: OpenApiSchema) => {
    const before = seen.get(id);
    if (before !== undefined) {
      if (before !== ky) checkSame(id, before, ky);
      return;
    }
    seen.set(id, ky);
    const t = current.types[id];
    if (t === undefined) throw new Error(`current schema: unknown type ${id}`);
    const out = new Map<string, string>();
    for (const name of Object.keys(t.fields).sort()) {
      const ft = t.fields[name];
      if (ft.scalar !== undefined || ft.preserveUnknown) continue; // no merge facts below a scalar or a free-form value
      const p = field(ky, name);
      if (p === undefined) {
        out.set(name, '-');
        continue;
      }
      visitField(ft, p, `${id}.${name}`, out, name);
    }
    overrides.set(id, out);
  };

  const visitField = (ft: SourceFieldType, p: OpenApiSchema, where: string, out: Map<string, string> | undefined, name: string) => {
    if (ft.ref !== undefined) return visitStruct(ft.ref, p);
    if (ft.list !== undefined) {
      const cur = currentFacts(ft);
      const ky = kyamlFacts(p);
      if (!sameFacts(cur, ky)) {
        if (!out) problems.push(`${where}: a list whose facts differ below a list or map`);
        else out.set(name, factsCode(ky));
      }
      return visitElem(ft.list, elements(p), `${where}[]`);
    }
    if (ft.map !== undefined) {
      return visitElem(ft.map, typeof p.additionalProperties === 'object' ? deref(p.additionalProperties) : undefined, `${where}{}`);
    }
  };

  const visitElem = (ft: SourceFieldType, p: OpenApiSchema | undefined, where: string) => {
    if (ft.scalar !== undefined || ft.preserveUnknown) return;
    if (p === undefined) {
      problems.push(`${where}: items typed now, untyped in 1.21.2`);
      return;
    }
    visitField(ft, p, where, undefined, '');
  };

  /** A current type reached with two different 1.21.2 schemas must get the same overrides from both. */
  const checkSame = (id: string, a: OpenApiSchema, b: OpenApiSchema) => {
    const t = current.types[id];
    for (const name of Object.keys(t.fields)) {
      const ft = t.fields[name];
      if (ft.scalar !== undefined || ft.preserveUnknown) continue;
      const pa = field(a, name);
      const pb = field(b, name);
      if ((pa === undefined) !== (pb === undefined) || (ft.list && pa && pb && !sameFacts(kyamlFacts(pa), kyamlFacts(pb)))) {
        problems.push(`${id}.${name}: reached through 1.21.2 schemas that disagree`);
      }
    }
  };

  for (const k of kinds) visitStruct(current.kinds[k], deref(kyamlKinds.get(k))!);
  if (problems.length > 0) throw new Error(`kyaml data: cannot express\n${problems.join('\n')}`);

  const lines: string[] = [];
  for (const id of [...overrides.keys()].sort()) {
    const fields = overrides.get(id)!;
    if (fields.size === 0) continue;
    lines.push(`${shortId(id)}\t${[...fields].map(([f, c]) => `${f}:${c}`).join(';')}`);
  }
  const removed = Object.keys(Object.fromEntries(kyamlKinds)).filter((k) => !(k in current.kinds) && !/\/(WatchEvent|DeleteOptions|[A-Za-z]+List)$/.test(k));
  const bundleSource = bundle.sources.map((s) => `${s.kubernetesVersion} sha256 ${s.sha256}`).join(', ');
  const currentSha = createHash('sha256').update(currentText).digest('hex');
  return [
    `// GENERATED by scripts/schema/kyaml-generate.ts — do not edit.`,
    `// From kyaml's built-in OpenAPI bundle (${bundleSource}) and scripts/schema/k8s-schema.json (sha256 ${currentSha}).`,
    `// ${removed.length} kinds kyaml knows are not current built-in kinds (removed API versions) and are left out.`,
    ``,
    `/** "<group>/<version>/<Kind>" of the current built-in kinds that kyaml's v1.21.2 data also has. */`,
    `export const KYAML_KINDS: readonly string[] = ${JSON.stringify(kinds)};`,
    ``,
    `/** "<short type id>\\t<field>:<code>;…": the fields of current types that kyaml sees otherwise (codes: scripts/schema/kyaml-generate.ts). */`,
    `export const KYAML_TYPES_TEXT = ${JSON.stringify(lines.join('\n'))};`,
    ``,
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const input = process.argv[2];
  if (!input) throw new Error('usage: npx tsx scripts/schema/kyaml-generate.ts <kubernetes-openapi-union-v1.21.2.bundle-v1.json.gz>');
  const out = generateKyaml(readFileSync(input));
  writeFileSync(KYAML_OUTPUT_PATH, out);
  console.log(`wrote ${KYAML_OUTPUT_PATH} (${out.length} bytes)`);
}
