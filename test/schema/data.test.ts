import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { generate, OUTPUT_PATH, SOURCE_PATH } from '../../scripts/schema/generate.js';
import type { SourceFieldType, SourceSchema } from '../../scripts/schema/encode.js';
import { BuiltinTypes } from '../../src/schema/builtin.js';
import { DEDUCED, NamedRef, UNTYPED_ATOMIC, resolve, type FieldDef, type TypeRef } from '../../src/schema/types.js';

const source = JSON.parse(readFileSync(SOURCE_PATH, 'utf8')) as SourceSchema;

/** Turns a decoded type back into the source table's field shape. */
function toSource(ref: TypeRef): SourceFieldType {
  if (ref instanceof NamedRef) {
    const out: SourceFieldType = { ref: ref.id };
    if (ref.relationship) out.elementRelationship = ref.relationship;
    return out;
  }
  if (ref === DEDUCED) return { preserveUnknown: true };
  if (ref === UNTYPED_ATOMIC) return { preserveUnknown: true, elementRelationship: 'atomic' };
  const atom = resolve(ref);
  if (atom.scalar) return atom.format ? { scalar: atom.scalar, format: atom.format } : { scalar: atom.scalar };
  if (atom.list) {
    const out: SourceFieldType = { list: toSource(atom.list.elem), listType: atom.list.listType };
    if (atom.list.keys.length > 0) out.keys = [...atom.list.keys];
    return out;
  }
  if (atom.map && atom.map.elem) return { map: toSource(atom.map.elem), mapType: atom.map.atomic ? 'atomic' : 'granular' };
  throw new Error('unexpected inline type');
}

function fieldToSource(f: FieldDef): SourceFieldType {
  const out = toSource(f.type);
  if (f.patchStrategy !== undefined) out.patchStrategy = f.patchStrategy;
  if (f.patchMergeKey !== undefined) out.patchMergeKey = f.patchMergeKey;
  if (f.default !== undefined) out.default = f.default;
  return out;
}

describe('built-in schema data', () => {
  it('the committed src/schema/data/builtin.ts is exactly what the generator makes from the source table', () => {
    expect(readFileSync(OUTPUT_PATH, 'utf8')).toBe(generate());
  });

  it('decodes back to the source table: every kind, type, field, list key, default and patch strategy', () => {
    const builtins = new BuiltinTypes();
    let fields = 0;
    for (const [id, t] of Object.entries(source.types)) {
      const atom = builtins.type(id);
      expect(atom.map?.atomic, id).toBe(t.elementRelationship === 'atomic');
      const decoded = atom.map!.fields!;
      expect([...decoded.keys()], id).toEqual(Object.keys(t.fields));
      for (const [name, ft] of Object.entries(t.fields)) {
        expect(fieldToSource(decoded.get(name)!), `${id}.${name}`).toEqual(ft);
        fields++;
      }
    }
    expect(fields).toBe(3036);
    for (const [gvk, id] of Object.entries(source.kinds)) {
      const [group, version, kind] = gvk.split('/');
      expect(builtins.kindTypeId(group, version, kind), gvk).toBe(id);
    }
    expect(Object.keys(source.kinds)).toHaveLength(112);
  });

  it('decodes lazily: one type per first use, nothing at import', () => {
    const builtins = new BuiltinTypes();
    expect(builtins.decodedCount).toBe(0);
    const pod = builtins.type(builtins.kindTypeId('', 'v1', 'Pod')!);
    expect(builtins.decodedCount).toBe(1);
    resolve(pod.map!.fields!.get('spec')!.type);
    expect(builtins.decodedCount).toBe(2);
  });

  it('ships a small table (printed; bounded well under the Workers budget)', () => {
    const text = readFileSync(OUTPUT_PATH);
    const gz = gzipSync(text, { level: 9 }).length;
    console.log(`schema data: ${text.length} bytes raw, ${gz} bytes gzip -9`);
    expect(text.length).toBeLessThan(120_000);
    expect(gz).toBeLessThan(20_000);
  });
});
