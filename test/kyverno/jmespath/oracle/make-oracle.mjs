// Regenerates go-jmespath-oracle.json by asking the `jp` binary (go-jmespath 0.4.0, Debian package
// `jp`) for every expression × document of corpus.mjs. Usage: node make-oracle.mjs /path/to/jp
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { docs, expressions } from './corpus.mjs';

const jp = process.argv[2] ?? 'jp';
const cases = [];
for (const [docName, doc] of Object.entries(docs)) {
  for (const expression of expressions) {
    let out;
    try {
      out = { result: JSON.parse(execFileSync(jp, ['--', expression], { input: JSON.stringify(doc), stdio: ['pipe', 'pipe', 'pipe'] }).toString()) };
    } catch (e) {
      out = { error: true };
    }
    cases.push({ doc: docName, expression, ...out });
  }
}
writeFileSync(new URL('./go-jmespath-oracle.json', import.meta.url), JSON.stringify({ source: 'go-jmespath 0.4.0 via jp 0.2.1 (Debian bookworm)', docs, cases }, null, 1) + '\n');
console.log(`${cases.length} cases`);
