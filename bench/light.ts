/** bench/light/app.ts bundled as the deployed builds bundle the app (bundleAsDeployed), and imported. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleAsDeployed } from './servers.js';

export type LightApp = typeof import('./light/app.js');

export async function lightApp(): Promise<LightApp> {
  const dir = mkdtempSync(join(tmpdir(), 'amender-bench-light-'));
  try {
    const outfile = join(dir, 'app.mjs');
    await bundleAsDeployed('bench/light/app.ts', outfile);
    return (await import(pathToFileURL(outfile).href)) as LightApp;
  } finally {
    // Imported already: the module stays in memory.
    rmSync(dir, { recursive: true, force: true });
  }
}
