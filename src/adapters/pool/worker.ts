/**
 * A review worker thread (dist/node/worker.cjs, started by worker-entry.cjs: worker-entry.ts): serves reviews
 * with the engine as built (serve.ts). In the build's warm-up run it writes its code cache just before
 * its first answer, when the engine has compiled what a review runs (../script-cache.ts). It runs below the
 * main thread's priority (AMENDER_WORKER_NICE, variables.ts).
 */
import { writesCodeCache, writeScriptCaches } from '../script-cache.js';
import { serveReviews } from './serve.js';
import { lowerThreadPriority } from './thread-priority.js';
import type { WorkerData } from './protocol.js';
import { workerData } from 'node:worker_threads';

// Again here for a worker started from source (tests), without worker-entry.ts: the same value, once set.
lowerThreadPriority((workerData as WorkerData).nice);
serveReviews(writesCodeCache('worker') ? { beforeFirstAnswer: () => void writeScriptCaches() } : {});
