/**
 * structured-merge-diff's own table tests (test/schema/smd/cases.yaml, README.md there): every merge
 * triplet of typed/merge_test.go and typed/deduced_test.go, and the objects of typed/validate_test.go,
 * each run two ways:
 * - as SMD runs it: the typed conversion (live with AllowDuplicates, patch without) and `live.Merge(patch)`;
 * - as kube-apiserver's ApplyStructuredMergeDiff runs it for a MutatingAdmissionPolicy: through
 *   `applyConfiguration` on an object of the kind, where the atomic check may refuse the patch first.
 * Schemas a CRD can express go through a CustomResourceDefinition in a SchemaRegistry; the others through
 * test/schema/smd-schema.ts; the deduced ones are the registry's deduced schema.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/json/index.js';
import { applyConfiguration, SchemaRegistry, type ObjectType } from '../../src/schema/index.js';
import { smdMerge } from '../../src/schema/ssa/merge.js';
import { validateTyped } from '../../src/schema/ssa/validate.js';
import { smdKind, smdSchema } from './smd-schema.js';

interface Triplet {
  lhs: string;
  rhs: string;
  out: string;
  /** The paths kube-apiserver's validatePatch reports: the ApplyConfiguration is refused before any merge. */
  atomic?: string[];
}
interface Group {
  file: string;
  test: string;
  name: string;
  root: string;
  /** SMD schema YAML, or `deduced` (SMD's DeducedParseableType). */
  schema: string;
  /** The same schema as a CRD's openAPIV3Schema, where one can express it. */
  crd?: JsonObject | null;
  triplets?: Triplet[];
  valid?: string[];
  invalid?: string[];
  duplicates?: string[];
  notApplicable?: { object: string; why: string }[];
}

const data = parse(readFileSync(join(import.meta.dirname, 'smd', 'cases.yaml'), 'utf8')) as { groups: Group[] };
const GROUP = 'smd.example';

/** Cases Amender does not pass yet (`<test> <name> <case>`); each fix removes the ones it fixes. */
const KNOWN_FAILING = new Set<string>([
]);
/** it, or it.fails for a known failing case (so that a fix that makes it pass must also remove it here). */
const run = (g: Group, name: string) => (KNOWN_FAILING.has(`${g.test} ${g.name} ${name}`) ? it.fails : it);

const kindOf = (g: Group) => g.root.replace(/^_+/, '').replace(/^./, (c) => c.toUpperCase()).replace(/_+$/, '');

/** The schema a group runs with: the deduced one, the CRD's where there is one, else the SMD YAML's. */
function typeOf(g: Group): ObjectType {
  const kind = kindOf(g);
  if (g.schema === 'deduced') return SchemaRegistry.builtin().deduced({ group: GROUP, version: 'v1', kind });
  if (g.crd) {
    const plural = kind.toLowerCase() + 's';
    const registry = SchemaRegistry.fresh().withCrd({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${GROUP}` },
      spec: {
        group: GROUP,
        names: { kind, plural },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: g.crd } }],
      },
    });
    return registry.lookup(`${GROUP}/v1`, kind)!;
  }
  return fromSmdYaml(g);
}

const fromSmdYaml = (g: Group): ObjectType => smdKind(smdSchema(g.schema)(g.root), { group: GROUP, version: 'v1', kind: kindOf(g) });

const asObject = (type: ObjectType, text: string): JsonObject => ({ apiVersion: `${GROUP}/v1`, kind: type.kind, ...(JSON.parse(text) as JsonObject) });
const label = (g: Group) => `${g.file} ${g.test} ${g.name}`;

// A group with a CRD runs a second time with the SMD YAML read by the test helper: the two must agree.
const runs = data.groups.flatMap((g) => (g.crd ? [{ g, type: typeOf(g), via: ' (CRD)' }, { g, type: fromSmdYaml(g), via: ' (SMD schema YAML)' }] : [{ g, type: typeOf(g), via: '' }]));

for (const { g, type, via } of runs) {
  const skipped = new Set((g.notApplicable ?? []).map((n) => n.object));

  if (g.triplets) {
    describe(label(g) + via, () => {
      for (const [i, t] of g.triplets!.entries()) run(g, `triplet ${i}`)(`triplet ${i}`, () => {
        const lhs = JSON.parse(t.lhs) as JsonValue;
        const rhs = JSON.parse(t.rhs) as JsonValue;
        // SMD: the live side converts with AllowDuplicates, the patch without; then live.Merge(patch).
        expect(validateTyped(lhs, type.root, true)).toEqual([]);
        expect(validateTyped(rhs, type.root, false)).toEqual([]);
        const merged = smdMerge(lhs, rhs, type.root);
        expect(merged.errors).toEqual([]);
        expect(merged.value).toEqual(JSON.parse(t.out));

        // kube-apiserver: the same through an ApplyConfiguration on an object of the kind.
        const r = applyConfiguration(type, asObject(type, t.lhs), JSON.parse(t.rhs));
        if (t.atomic) {
          expect(!r.ok && r.error.message).toBe(`invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${t.atomic.join(', ')}`);
        } else {
          if (!r.ok) throw r.error;
          expect(r.object).toEqual(asObject(type, t.out));
        }
      });
    });
  }

  if (g.valid || g.invalid || g.duplicates) {
    describe(label(g) + via, () => {
      const base = (): JsonObject => asObject(type, '{}');
      const asPatch = (o: string) => applyConfiguration(type, base(), JSON.parse(o));
      const asLive = (o: string) => applyConfiguration(type, asObject(type, o), {});
      const stage = (r: ReturnType<typeof applyConfiguration>) => (r.ok ? 'ok' : r.error.stage);
      const noInvalidAtom = (r: ReturnType<typeof applyConfiguration>) => expect(r.ok || !r.error.message.includes('invalid atom')).toBe(true);

      for (const o of g.valid ?? []) run(g, `valid ${o}`)(`valid ${o}`, () => {
        // Valid as a patch (the atomic check may still refuse it: that comes after the conversion) and as live.
        expect(stage(asPatch(o))).not.toBe('patch');
        expect(stage(asLive(o))).toBe('ok');
      });
      for (const o of (g.invalid ?? []).filter((o) => !skipped.has(o))) run(g, `invalid ${o}`)(`invalid ${o}`, () => {
        const p = asPatch(o);
        expect(stage(p)).toBe('patch');
        noInvalidAtom(p);
        const l = asLive(o);
        expect(stage(l)).toBe('live');
        noInvalidAtom(l);
      });
      for (const o of g.duplicates ?? []) run(g, `duplicates ${o}`)(`duplicates ${o}`, () => {
        const p = asPatch(o);
        expect(stage(p)).toBe('patch');
        noInvalidAtom(p);
        expect(stage(asLive(o))).toBe('ok');
      });
    });
  }
}
