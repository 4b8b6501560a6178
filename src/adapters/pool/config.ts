/**
 * Settings of the review worker pool of the Node server, from the environment:
 *
 *   AMENDER_WORKERS            worker threads evaluating reviews (default: one less than
 *                              os.availableParallelism(), at least 2 — see defaultWorkers);
 *                              0 evaluates on the main thread (no isolation: a review holds the event loop)
 *   AMENDER_WORKER_HEAP_MB     old-generation heap of each worker (resourceLimits); a review that exhausts
 *                              it costs only its worker (default 512)
 *   AMENDER_WORKER_GRACE_MS    time past a review's deadline (or past its client going away) before its
 *                              worker is terminated and replaced (default 1000)
 *   AMENDER_REVIEW_QUEUE_LIMIT reviews waiting for a free worker; more are answered 503 (default 64 per worker)
 */
import { availableParallelism } from 'node:os';
import { integer, readSettings } from '../../settings/index.js';
import { DEFAULT_WORKER_HEAP_MB, POOL_VARIABLES } from './variables.js';

export { DEFAULT_WORKER_HEAP_MB, POOL_VARIABLES };

export interface PoolSettings {
  workers: number;
  heapMb: number;
  graceMs: number;
  queueLimit: number;
}

export const POOL_ENVIRONMENT_VARIABLES: readonly string[] = Object.values(POOL_VARIABLES);

export const DEFAULT_WORKER_GRACE_MS = 1000;
export const QUEUE_PER_WORKER = 64;
/** Below this a worker cannot even load the engine. */
const MIN_HEAP_MB = 16;

/**
 * One worker per core but one — the main thread keeps a core for what every request costs there (HTTP,
 * TLS, the body, the access log, metrics, handing reviews over) — and never fewer than two, so that one
 * review running to its deadline does not hold every other review in the queue behind it (isolation
 * first). On 2 cores that is 2, as before: measured there at 50 connections (npm run bench -- 40 45,
 * under load from other processes), 1 worker spent less CPU per review (622 vs 758 µs) but throughput
 * and p99 did not separate 1 from 2 workers beyond the noise, and one worker would let a single slow
 * review stall all others.
 */
export function defaultWorkers(parallelism: number): number {
  return Math.max(2, parallelism - 1);
}

/** Reads the pool settings; returns them or the problems found (one line each, naming the variable). */
export function readPoolSettings(env: Readonly<Record<string, string | undefined>>, parallelism = availableParallelism()): { settings: PoolSettings; problems: string[] } {
  const problems: string[] = [];
  const { workers } = readSettings({ workers: { variable: POOL_VARIABLES.workers, type: integer(0), default: defaultWorkers(parallelism) } }, env, problems);
  const rest = readSettings(
    {
      heapMb: { variable: POOL_VARIABLES.heapMb, type: integer(MIN_HEAP_MB), default: DEFAULT_WORKER_HEAP_MB },
      graceMs: { variable: POOL_VARIABLES.graceMs, type: integer(1), default: DEFAULT_WORKER_GRACE_MS },
      queueLimit: { variable: POOL_VARIABLES.queueLimit, type: integer(1), default: Math.max(1, workers) * QUEUE_PER_WORKER },
    },
    env,
    problems,
  );
  return { settings: { workers, ...rest }, problems };
}
