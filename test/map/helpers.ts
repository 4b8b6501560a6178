import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const vectorsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'map');

/** Every document of a vector file (a YAML multi-document stream). */
export function loadVectors(relative: string): any[] {
  const text = readFileSync(join(vectorsDir, relative), 'utf8');
  return parseAllDocuments(text).map((d) => {
    if (d.errors.length) throw new Error(`${relative}: ${d.errors[0].message}`);
    return d.toJS({ maxAliasCount: -1 });
  });
}
