/** The built bundles, built on demand when a test runs without `npm test` (which builds first). */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SERVER_BUNDLE = `${ROOT}dist/node/main.js`;
export const CLI_BIN = `${ROOT}bin/amender.js`;

export function ensureBuilt(): void {
  if (existsSync(SERVER_BUNDLE) && existsSync(`${ROOT}dist/cli/amender.js`)) return;
  execFileSync(process.execPath, [`${ROOT}scripts/build.mjs`, 'node', 'cli'], { cwd: ROOT, stdio: 'ignore' });
}
