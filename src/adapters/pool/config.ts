/**
 * Settings of the review worker pool of the Node server, from the environment:
 *
 *   AMENDER_WORKERS            worker threads evaluating reviews (default: one less than
 *                              os.availableParallelism(), at least 2 — see defaultWorkers);
 *                              0 evaluates on the main thread (no isolation: a review holds the event loop);
 *                              at most four per core, at least 16 (see maxWorkers)
 *   AMENDER_WORKER_HEAP_MB     old-generation heap of each worker (resourceLimits); a review that exhausts
 *                              it costs only its worker (default 512, less under a memory limit: see
 *                              defaultWorkerHeapMb)
 *   AMENDER_WORKER_GRACE_MS    time past a review's deadline (or past its client going away) before its
 *                              worker is terminated and replaced (default 1000)
 *   AMENDER_REVIEW_QUEUE_LIMIT reviews waiting for a free worker; more are answered 503 (default 64 per worker)
 *   AMENDER_WORKER_NICE        nice levels the workers run below the main thread, 0 to 19 (default 5; Linux
 *                              only: see DEFAULT_WORKER_NICE)
 */
import { availableParallelism } from 'node:os';
import { integer, milliseconds, readSettings } from '../../settings/index.js';
import { DEFAULT_WORKER_HEAP_MB, DEFAULT_WORKER_NICE, defaultWorkerHeapMb, defaultWorkers, MAX_NICE, maxWorkers, memoryLimitBytes, MIN_WORKER_HEAP_MB, POOL_VARIABLES, WORKER_YOUNG_GENERATION_MB } from './variables.js';

export { DEFAULT_WORKER_HEAP_MB, DEFAULT_WORKER_NICE, defaultWorkerHeapMb, defaultWorkers, memoryLimitBytes, POOL_VARIABLES };

export interface PoolSettings {
  workers: number;
  heapMb: number;
  graceMs: number;
  queueLimit: number;
  nice: number;
}

export const POOL_ENVIRONMENT_VARIABLES: readonly string[] = Object.values(POOL_VARIABLES);

export const DEFAULT_WORKER_GRACE_MS = 1000;
export const QUEUE_PER_WORKER = 64;
/**
 * Reads the pool settings; returns them, the problems found (one line each, naming the variable) and
 * warnings (settings that work but defeat their purpose). `memoryLimit`: the process's memory limit in
 * bytes, undefined for none (default: read from the system).
 */
export function readPoolSettings(
  env: Readonly<Record<string, string | undefined>>,
  parallelism = availableParallelism(),
  memoryLimit = memoryLimitBytes(),
): { settings: PoolSettings; problems: string[]; warnings: string[] } {
  const problems: string[] = [];
  const { workers } = readSettings({ workers: { variable: POOL_VARIABLES.workers, type: integer(0, maxWorkers(parallelism)), default: defaultWorkers(parallelism) } }, env, problems);
  const rest = readSettings(
    {
      heapMb: { variable: POOL_VARIABLES.heapMb, type: integer(MIN_WORKER_HEAP_MB), default: defaultWorkerHeapMb(workers, memoryLimit) },
      graceMs: { variable: POOL_VARIABLES.graceMs, type: milliseconds(1), default: DEFAULT_WORKER_GRACE_MS },
      queueLimit: { variable: POOL_VARIABLES.queueLimit, type: integer(1), default: Math.max(1, workers) * QUEUE_PER_WORKER },
      nice: { variable: POOL_VARIABLES.nice, type: integer(0, MAX_NICE), default: DEFAULT_WORKER_NICE },
    },
    env,
    problems,
  );
  const warnings: string[] = [];
  if (memoryLimit !== undefined && workers > 0 && problems.length === 0) {
    const limitMb = Math.floor(memoryLimit / 2 ** 20);
    const heaps = (workers + 1) * (rest.heapMb + WORKER_YOUNG_GENERATION_MB);
    if (heaps > limitMb) {
      warnings.push(
        `${POOL_VARIABLES.heapMb}=${rest.heapMb}: ${workers} review workers and the spare may hold ${heaps} MB of heap, over the memory limit of ${limitMb} MB; ` +
          `a review that fills its worker's heap would have the whole process killed instead of that worker (unset it to size the heaps from the limit)`,
      );
    }
  }
  return { settings: { workers, ...rest }, problems, warnings };
}
