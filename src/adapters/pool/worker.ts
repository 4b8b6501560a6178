/**
 * A review worker thread (dist/node/worker.cjs, started by worker-entry.cjs: worker-entry.ts): serves reviews
 * with the engine as built (serve.ts). In the build's warm-up run it writes its code cache just before
 * its first answer, when the engine has compiled what a review runs (../script-cache.ts).
 */
import { writesCodeCache, writeScriptCaches } from '../script-cache.js';
import { serveReviews } from './serve.js';

serveReviews(writesCodeCache('worker') ? { beforeFirstAnswer: () => void writeScriptCaches() } : {});
