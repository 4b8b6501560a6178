#!/usr/bin/env node
/**
 * `npm run build`: one esbuild bundle per target in dist/<target>/, then a size report. Adding a
 * runtime (Lambda, Workers, ...) is one entry in TARGETS. `node scripts/build.mjs node cli` builds only
 * the named targets.
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Lets bundled CommonJS dependencies `require` Node built-ins from an ESM bundle. */
const NODE_REQUIRE_BANNER = "import { createRequire as __amenderCreateRequire } from 'node:module';\nconst require = __amenderCreateRequire(import.meta.url);";

/** @type {{ name: string, entry: string, outfile: string, platform: 'node' | 'neutral' | 'browser', options?: import('esbuild').BuildOptions }[]} */
export const TARGETS = [
  { name: 'node', entry: 'src/adapters/node-main.ts', outfile: 'dist/node/main.js', platform: 'node' },
  { name: 'cli', entry: 'src/cli/bin.ts', outfile: 'dist/cli/amender.js', platform: 'node' },
];

export async function buildTargets(names = []) {
  const selected = names.length ? TARGETS.filter((t) => names.includes(t.name)) : TARGETS;
  const unknown = names.filter((n) => !TARGETS.some((t) => t.name === n));
  if (unknown.length) throw new Error(`unknown build target(s): ${unknown.join(', ')} (known: ${TARGETS.map((t) => t.name).join(', ')})`);
  const report = [];
  for (const target of selected) {
    const outdir = dirname(join(root, target.outfile));
    rmSync(outdir, { recursive: true, force: true });
    mkdirSync(outdir, { recursive: true });
    await build({
      absWorkingDir: root,
      entryPoints: [target.entry],
      outfile: target.outfile,
      bundle: true,
      format: 'esm',
      platform: target.platform,
      target: 'node20',
      sourcemap: 'linked',
      legalComments: 'linked',
      logLevel: 'warning',
      banner: target.platform === 'node' ? { js: NODE_REQUIRE_BANNER } : undefined,
      ...target.options,
    });
    const file = join(root, target.outfile);
    report.push({ target: target.name, file: relative(root, file), bytes: statSync(file).size, gzip: gzipSync(readFileSync(file)).length });
  }
  // Keep the figures of targets not rebuilt this time (`node scripts/build.mjs node`).
  const sizesFile = join(root, 'dist', 'sizes.json');
  let previous = [];
  try {
    previous = JSON.parse(readFileSync(sizesFile, 'utf8')).filter((r) => !report.some((n) => n.target === r.target) && TARGETS.some((t) => t.name === r.target));
  } catch {
    // first build
  }
  writeFileSync(sizesFile, JSON.stringify([...previous, ...report], null, 2) + '\n');
  return report;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await buildTargets(process.argv.slice(2));
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  for (const r of report) console.log(`built ${r.target.padEnd(8)} ${r.file.padEnd(24)} ${kb(r.bytes).padStart(11)}  (${kb(r.gzip)} gzip)`);
}
