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
