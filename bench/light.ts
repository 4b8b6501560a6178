/**
 * bench/light/app.ts bundled as the deployed builds bundle the app (the light Response and Headers of
 * src/adapters/web injected), into a temporary folder, and imported.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './servers.js';

export type LightApp = typeof import('./light/app.js');

export async function lightApp(): Promise<LightApp> {
  const dir = mkdtempSync(join(tmpdir(), 'amender-bench-light-'));
  try {
    const esbuild = (await import('esbuild')) as typeof import('esbuild');
    const outfile = join(dir, 'app.mjs');
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [join(ROOT, 'bench/light/app.ts')],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      inject: [join(ROOT, 'src/adapters/web/globals.ts')],
      logLevel: 'warning',
      banner: { js: "import { createRequire as __cr } from 'node:module';\nconst require = __cr(import.meta.url);" },
    });
    return (await import(pathToFileURL(outfile).href)) as LightApp;
  } finally {
    // Imported already: the module stays in memory.
    rmSync(dir, { recursive: true, force: true });
  }
}
