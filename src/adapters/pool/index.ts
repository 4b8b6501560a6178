/**
 * The Node server's review worker pool (isolation of reviews from each other and from the server).
 *
 *   readPoolSettings(env) → { settings: { workers, heapMb, graceMs, queueLimit, nice }, problems, warnings }
 *   workerEntryBeside(import.meta.url) → WorkerEntry      the worker script (built or from source)
 *   new ReviewPool({ ...settings, entry, answerStopped?, logger?, spare?, stoppedBudget? })
 *       .reviewer          for createApp({ reviewer })
 *       .unavailable()     for createApp({ unavailable }): why no review can be evaluated (workers cannot start)
 *       .registerMetrics(registry)
 *       .close()
 *   serveReviews(options?)      the body of a worker thread (worker.ts; a test worker passes its own buildSet)
 *   startEarlyWorker(url, env)  the first worker, started by the server's entry before its script (early.ts)
 *   lowerThreadPriority(by)     a worker's own priority below the main thread's (thread-priority.ts)
 */
export { readPoolSettings, defaultWorkers, defaultWorkerHeapMb, memoryLimitBytes, POOL_ENVIRONMENT_VARIABLES, POOL_VARIABLES, DEFAULT_WORKER_HEAP_MB, DEFAULT_WORKER_GRACE_MS, DEFAULT_WORKER_NICE, type PoolSettings } from './config.js';
export { workerEntryBeside, WORKER_BUNDLE_NAME, type WorkerEntry } from './entry.js';
export { ReviewPool, type PoolOptions, type ReplaceReason } from './pool.js';
export { stoppedReviewAnswer, type AnswerStopped, type StopReason } from './stopped.js';
export { STOPPED_BUDGET, StoppedBudget, type StoppedBudgetTiming } from './stopped-budget.js';
export { serveReviews, type ReviewWorkerOptions } from './serve.js';
export { pendingEarlyWorker, startEarlyWorker, takeEarlyWorker, type EarlyWorker, type WorkerShape } from './early.js';
export { lowerThreadPriority } from './thread-priority.js';
export { WORKER_YOUNG_GENERATION_MB } from './variables.js';
