/**
 * Entry of the Node server bundle (dist/node/main.js): compiles the server (server.cjs beside this file,
 * node-main.ts built as one CommonJS script) with the V8 code cache the build took after a warm-up review
 * (script-cache.ts), then runs it. scripts/build.mjs writes worker-entry.cjs (pool/worker-entry.ts) beside this
 * file and ../../policies is found from it.
 */
import { fileURLToPath } from 'node:url';
import { loadCachedScript, writesCodeCache, writeScriptCaches } from './script-cache.js';
import { startEarlyWorker } from './pool/early.js';
import { WORKER_BUNDLE_NAME } from './pool/entry.js';

type Server = typeof import('./node-main.js');

// The first review worker loads beside the server's script, not after it (pool/early.ts).
startEarlyWorker(new URL(`./${WORKER_BUNDLE_NAME}`, import.meta.url), process.env);
const server = loadCachedScript<Server>(fileURLToPath(new URL('./server.cjs', import.meta.url)));
if (writesCodeCache('main')) process.on('exit', () => writeScriptCaches());
await server.exports.runNodeServer(import.meta.url, { codeCache: server.cache });
