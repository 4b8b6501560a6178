/**
 * `npm run bench`: runs every suite in bench/suites/ (or those named on the command line) one after
 * the other and prints their figures. Each suite module exports `run(): Promise<void>`.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'suites');
const wanted = process.argv.slice(2);
const suites = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

console.log(`# Amender benchmarks — node ${process.version}, ${new Date().toISOString()}`);
for (const file of suites) {
  const mod = (await import(join(dir, file))) as { run(): Promise<void> };
  await mod.run();
}
