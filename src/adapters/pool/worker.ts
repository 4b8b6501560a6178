/**
 * A review worker thread (dist/node/worker.cjs, started by worker.js: worker-entry.ts): serves reviews
 * with the engine as built (serve.ts). In the build's warm-up run it writes its code cache just before
 * its first answer, when the engine has compiled what a review runs (../script-cache.ts).
 */
import { WRITE_CODE_CACHE_VARIABLE, writeScriptCaches } from '../script-cache.js';
import { serveReviews } from './serve.js';

serveReviews(process.env[WRITE_CODE_CACHE_VARIABLE] === '1' ? { beforeFirstAnswer: () => void writeScriptCaches() } : {});
