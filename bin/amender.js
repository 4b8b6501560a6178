#!/usr/bin/env node
// The `amender` command: runs the CLI bundle that `npm run build` writes to dist/cli/.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const bundle = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli', 'amender.js');
if (!existsSync(bundle)) {
  process.stderr.write('amender: the CLI is not built yet; run `npm run build` in the Amender checkout first\n');
  process.exit(2);
}
// Node ≥ 22.1 keeps V8's code for the bundle between runs (NODE_COMPILE_CACHE, else
// os.tmpdir()/node-compile-cache; NODE_DISABLE_COMPILE_CACHE=1 turns it off): compiling the 3 MB bundle
// is most of a run's start. A directory it cannot write only leaves the cache off.
module.enableCompileCache?.();
await import(pathToFileURL(bundle).href);
