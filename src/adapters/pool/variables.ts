/**
 * The pool's environment variables and the defaults an early reader needs (early.ts runs before the
 * server's script loads, so this module imports nothing; config.ts reads them properly).
 */
export const POOL_VARIABLES = {
  workers: 'AMENDER_WORKERS',
  heapMb: 'AMENDER_WORKER_HEAP_MB',
  graceMs: 'AMENDER_WORKER_GRACE_MS',
  queueLimit: 'AMENDER_REVIEW_QUEUE_LIMIT',
} as const;

export const DEFAULT_WORKER_HEAP_MB = 512;

/**
 * The young generation of each worker (resourceLimits.maxYoungGenerationSizeMb; V8 makes it three times a
 * semi-space: two 8 MB semi-spaces and as much for new large objects). Left to V8 (a limit from the
 * machine's memory) the new space grows and shrinks under load, and each time its pages are taken again
 * they fault in afresh: 0.07–0.16 page faults per review on a virtual machine where a fault costs ~15 µs,
 * none with this cap. Under 50 connections (Node 24, seven alternations) the pool used 7 % less CPU per
 * request and its p99 fell by 2–4 ms (bench/README.md, stop 30).
 */
export const WORKER_YOUNG_GENERATION_MB = 24;
