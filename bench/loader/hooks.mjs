/**
 * Module hooks for the benchmarks (see register.mjs): `.ts`/`.mts` files are transpiled by esbuild as they
 * load (no bundling, no keepNames), and a relative `./x.js` import resolves to `./x.ts` when only the
 * TypeScript file exists, as the project's imports are written.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function resolve(specifier, context, nextResolve) {
  if (/^(\.{1,2})?\//.test(specifier) && specifier.endsWith('.js') && /\.m?ts$/.test(context.parentURL ?? '')) {
    const ts = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (!existsSync(fileURLToPath(new URL(specifier, context.parentURL))) && existsSync(fileURLToPath(ts))) {
      return { url: ts.href, shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !/\.m?ts$/.test(url)) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = await readFile(path, 'utf8');
  const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: path });
  return { format: 'module', source: code, shortCircuit: true };
}
