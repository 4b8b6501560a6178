/**
 * Entry of the Node server bundle (dist/node/main.js): compiles the server (server.cjs beside this file,
 * node-main.ts built as one CommonJS script) with the V8 code cache the build took after a warm-up review
 * (script-cache.ts), then runs it. scripts/build.mjs writes worker.js (pool/worker-entry.ts) beside this
 * file and ../../policies is found from it.
 */
import { fileURLToPath } from 'node:url';
import { loadCachedScript, writesCodeCache, writeScriptCaches } from './script-cache.js';

type Server = typeof import('./node-main.js');

const server = loadCachedScript<Server>(fileURLToPath(new URL('./server.cjs', import.meta.url)));
if (writesCodeCache('main')) process.on('exit', () => writeScriptCaches());
await server.exports.runNodeServer(import.meta.url, { codeCache: server.cache });
