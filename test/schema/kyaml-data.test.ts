/**
 * src/schema/data/kyaml.ts (kyaml's v1.21.2 merge facts, as differences from the current table): it names only
 * current kinds, types and fields, stays small, and, given kyaml's bundle (KYAML_BUNDLE=path to
 * kubernetes-openapi-union-v1.21.2.bundle-v1.json.gz, see scripts/schema/kyaml-generate.ts), is exactly the
 * generator's output.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateKyaml, KYAML_OUTPUT_PATH } from '../../scripts/schema/kyaml-generate.js';
import { BuiltinTypes, builtinKinds } from '../../src/schema/builtin.js';
import { PREFIXES } from '../../src/schema/data/builtin.js';
import { KYAML_KINDS, KYAML_TYPES_TEXT } from '../../src/schema/data/kyaml.js';
import { KyamlTypes } from '../../src/schema/kyaml.js';
import { resolve } from '../../src/schema/types.js';

const fullId = (short: string) => {
  for (const [prefix, long] of PREFIXES) if (short.startsWith(prefix)) return long + short.slice(prefix.length);
  return short;
};

describe('kyaml merge-facts data', () => {
  it('is small', () => {
    const size = readFileSync(KYAML_OUTPUT_PATH).length;
    console.log(`data/kyaml.ts: ${size} bytes, ${KYAML_KINDS.length} kinds, ${KYAML_TYPES_TEXT.split('\n').length} types`);
    expect(size).toBeLessThan(8 * 1024);
  });

  it('names current built-in kinds only', () => {
    const current = new Set(builtinKinds());
    for (const k of KYAML_KINDS) expect(current.has(k), k).toBe(true);
    expect(KYAML_KINDS).toContain('/v1/Pod');
    expect(KYAML_KINDS).toContain('apps/v1/Deployment');
    expect(KYAML_KINDS).not.toContain('autoscaling/v2/HorizontalPodAutoscaler');
  });

  it('adjusts existing fields of existing types, list facts only on lists', () => {
    const current = new BuiltinTypes();
    const view = new KyamlTypes();
    for (const line of KYAML_TYPES_TEXT.split('\n')) {
      const [short, body] = line.split('\t');
      const id = fullId(short);
      const fields = current.type(id).map!.fields!;
      const adjusted = view.type(id).map!.fields!;
      for (const entry of body.split(';')) {
        const colon = entry.indexOf(':');
        const [name, code] = [entry.slice(0, colon), entry.slice(colon + 1)];
        expect(fields.has(name), `${id}.${name}`).toBe(true);
        expect(code, `${id}.${name}`).toMatch(/^(-|r|m|m\([^()]+\))$/);
        if (code === '-') expect(adjusted.has(name)).toBe(false);
        else expect(resolve(fields.get(name)!.type).list, `${id}.${name}`).toBeDefined();
      }
    }
  });

  const bundle = process.env.KYAML_BUNDLE;
  it.skipIf(!bundle || !existsSync(bundle))('is the generator output for kyaml\'s bundle', () => {
    expect(generateKyaml(readFileSync(bundle!))).toBe(readFileSync(KYAML_OUTPUT_PATH, 'utf8'));
  });
});
