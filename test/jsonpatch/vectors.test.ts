import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { JsonValue } from '../../src/json/index.js';
import { applyJsonPatch, applyPatch, createPatch } from '../../src/jsonpatch/index.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'kyverno');
const load = (prefix: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ file: f, v: parseYaml(readFileSync(join(dir, f), 'utf8')) as any }));

/** Kyverno's text → ops step, as far as these vectors need it: `[`-prefixed text is JSON, the rest YAML 1.1. */
function patchOps(text: string): unknown {
  return text.startsWith('[') ? JSON.parse(text) : parseYaml(text, { version: '1.1' });
}

function sortOps(ops: unknown[]): unknown[] {
  return [...ops].map((o) => JSON.stringify(o, Object.keys(o as object).sort())).sort();
}

describe('kyverno u-json6902-* vectors (Kyverno flavour)', () => {
  const vectors = load('u-json6902-');
  it('finds the vectors', () => expect(vectors.length).toBeGreaterThanOrEqual(6));

  for (const { file, v } of vectors) {
    it(file, () => {
      const resource = v.resource as JsonValue;
      const before = JSON.stringify(resource);
      const result = applyJsonPatch(resource, patchOps(v.patchesJson6902), 'kyverno');
      if (!result.ok) throw new Error(result.message);
      expect(result.doc).toEqual(v.expect.patched);
      expect(JSON.stringify(resource)).toBe(before);

      // The admission patch is the diff, and it applies strictly.
      const diff = createPatch(resource, result.doc);
      const strict = applyPatch(resource, diff, 'rfc6902');
      expect(strict.ok && strict.doc).toEqual(v.expect.patched);
      if (v.expect.patches) {
        if (v.expect.patchesOrder === 'exact') expect(diff).toEqual(v.expect.patches);
        else expect(sortOps(diff)).toEqual(sortOps(v.expect.patches));
      }
    });
  }
});

