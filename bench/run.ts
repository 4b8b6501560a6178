/**
 * `npm run bench`: runs every suite in bench/suites/ (or those named on the command line) one after
 * the other and prints their figures. Each suite module exports `run(): Promise<void>`.
 * `npm run bench -- --check` also exits 1 when a figure with a goal (bench/goals.ts) misses it. Between
 * suites it times a yardstick, to say which suites ran while the machine changed speed (steadiness.ts).
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measuredUnsteady, noteYardstickSpread, recordedGoals, reportGoals } from './goals.js';
import { yardstickSpread, steadinessLine, yardstickNs } from './steadiness.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'suites');
const args = process.argv.slice(2);
const check = args.includes('--check');
const wanted = args.filter((a) => !a.startsWith('--'));
const suites = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

console.log(`# Amender benchmarks — node ${process.version}, ${new Date().toISOString()}`);
let before = yardstickNs();
for (const file of suites) {
  const mod = (await import(join(dir, file))) as { run(): Promise<void> };
  const firstRow = recordedGoals().length;
  await mod.run();
  const after = yardstickNs();
  console.log(`\n${steadinessLine(file.replace(/\.ts$/, ''), before, after)}`);
  noteYardstickSpread(firstRow, yardstickSpread(before, after));
  before = after;
}

const missed = reportGoals();
if (check && missed.length > 0) {
  console.error(`\n${missed.length} figure(s) missed their goal: ${missed.map((r) => r.id).join(', ')}`);
  const unsteady = missed.filter(measuredUnsteady);
  if (unsteady.length > 0) console.error(`${unsteady.length} of them measured while the machine changed speed or its CPUs differed (run their suites again): ${unsteady.map((r) => r.id).join(', ')}`);
  process.exit(1);
}
