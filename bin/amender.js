#!/usr/bin/env node
// The `amender` command: runs the CLI bundle that `npm run build` writes to dist/cli/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const bundle = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli', 'amender.js');
if (!existsSync(bundle)) {
  process.stderr.write('amender: the CLI is not built yet; run `npm run build` in the Amender checkout first\n');
  process.exit(2);
}
await import(pathToFileURL(bundle).href);
