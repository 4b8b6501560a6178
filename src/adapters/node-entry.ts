/**
 * Entry of the Node server bundle (dist/node/main.js): the shipped compile cache first (compile-cache.ts),
 * then the server (node-main.ts), imported only now so that its modules compile with the cache on.
 * scripts/build.mjs writes the server's chunks beside this file, so `import.meta.url` means the same
 * folder in node-main.ts as here (worker.js and ../../policies are found from it).
 */
import { enableShippedCompileCache } from './compile-cache.js';

enableShippedCompileCache(import.meta.url);
await import('./node-main.js');
