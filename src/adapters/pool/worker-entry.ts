/**
 * Entry of a review worker thread (dist/node/worker.js): the compile cache shipped beside the bundle
 * first (the worker compiles the engine chunk again, in its own isolate), then the worker (worker.ts).
 */
import { enableShippedCompileCache } from '../compile-cache.js';

enableShippedCompileCache(import.meta.url);
await import('./worker.js');
