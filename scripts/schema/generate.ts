/**
 * Regenerates src/schema/data/builtin.ts from scripts/schema/k8s-schema.json (a copy of
 * shared/k8s-schema/k8s-schema.json). Run: `npx tsx scripts/schema/generate.ts`.
 * test/schema/data.test.ts fails when the committed file and this output differ.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeSchema, renderModule, type SourceSchema } from './encode.js';

const here = dirname(fileURLToPath(import.meta.url));
export const SOURCE_PATH = join(here, 'k8s-schema.json');
export const OUTPUT_PATH = join(here, '..', '..', 'src', 'schema', 'data', 'builtin.ts');

export function generate(): string {
  const text = readFileSync(SOURCE_PATH, 'utf8');
  const sha = createHash('sha256').update(text).digest('hex');
  return renderModule(encodeSchema(JSON.parse(text) as SourceSchema), sha);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = generate();
  writeFileSync(OUTPUT_PATH, out);
  console.log(`wrote ${OUTPUT_PATH} (${out.length} bytes)`);
}
