/**
 * Entry of a review worker thread (dist/node/worker-entry.cjs, CommonJS: see scripts/build.mjs): compiles
 * the worker (worker.cjs beside this file, worker.ts built as one CommonJS script) with the V8 code cache
 * the build took after a warm-up review (../script-cache.ts), which runs it.
 */
import { fileURLToPath } from 'node:url';
import { workerData } from 'node:worker_threads';
import { loadCachedScript } from '../script-cache.js';
import type { WorkerData } from './protocol.js';
import { lowerThreadPriority } from './thread-priority.js';

// Before the worker's script loads, so that loading it at a cold start yields to the main thread.
lowerThreadPriority((workerData as WorkerData).nice);
loadCachedScript(fileURLToPath(new URL('./worker.cjs', import.meta.url)));
