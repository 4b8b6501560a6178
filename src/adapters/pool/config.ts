/**
 * Settings of the review worker pool of the Node server, from the environment:
 *
 *   AMENDER_WORKERS            worker threads evaluating reviews (default: one less than
 *                              os.availableParallelism(), at least 1 — see defaultWorkers);
 *                              0 evaluates on the main thread (no isolation: a review holds the event loop)
 *   AMENDER_WORKER_HEAP_MB     old-generation heap of each worker (resourceLimits); a review that exhausts
 *                              it costs only its worker (default 512)
 *   AMENDER_WORKER_GRACE_MS    time past a review's deadline (or past its client going away) before its
 *                              worker is terminated and replaced (default 1000)
 *   AMENDER_REVIEW_QUEUE_LIMIT reviews waiting for a free worker; more are answered 503 (default 64 per worker)
 */
import { availableParallelism } from 'node:os';

export interface PoolSettings {
  workers: number;
  heapMb: number;
  graceMs: number;
  queueLimit: number;
}

export const POOL_VARIABLES = {
  workers: 'AMENDER_WORKERS',
  heapMb: 'AMENDER_WORKER_HEAP_MB',
  graceMs: 'AMENDER_WORKER_GRACE_MS',
  queueLimit: 'AMENDER_REVIEW_QUEUE_LIMIT',
} as const;

export const POOL_ENVIRONMENT_VARIABLES: readonly string[] = Object.values(POOL_VARIABLES);

export const DEFAULT_WORKER_HEAP_MB = 512;
export const DEFAULT_WORKER_GRACE_MS = 1000;
export const QUEUE_PER_WORKER = 64;
/** Below this a worker cannot even load the engine. */
const MIN_HEAP_MB = 16;

/**
 * One worker per core but one, at least one: the main thread needs a core of its own for what every
 * request costs there (HTTP, TLS, the body, the access log, metrics) and for handing reviews over. On 2
 * cores, main thread + 2 workers oversubscribe them: measured on 2 cores at 50 connections (npm run
 * bench -- 40 45; ratios of one run under load), 1 worker gave 1.1–1.2× the throughput of 2 and less CPU
 * per review (each idle worker woken is CPU spent).
 */
export function defaultWorkers(parallelism: number): number {
  return Math.max(1, parallelism - 1);
}

/** Reads the pool settings; returns them or the problems found (one line each, naming the variable). */
export function readPoolSettings(env: Readonly<Record<string, string | undefined>>, parallelism = availableParallelism()): { settings: PoolSettings; problems: string[] } {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < min) {
      problems.push(`${name}: expected an integer of at least ${min}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return n;
  };
  const workers = int(POOL_VARIABLES.workers, defaultWorkers(parallelism), 0);
  const settings: PoolSettings = {
    workers,
    heapMb: int(POOL_VARIABLES.heapMb, DEFAULT_WORKER_HEAP_MB, MIN_HEAP_MB),
    graceMs: int(POOL_VARIABLES.graceMs, DEFAULT_WORKER_GRACE_MS, 1),
    queueLimit: int(POOL_VARIABLES.queueLimit, Math.max(1, workers) * QUEUE_PER_WORKER, 1),
  };
  return { settings, problems };
}
