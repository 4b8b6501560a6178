/**
 * The pool's environment variables and the defaults an early reader needs (early.ts runs before the
 * server's script loads, so this module imports nothing; config.ts reads them properly).
 */
export const POOL_VARIABLES = {
  workers: 'AMENDER_WORKERS',
  heapMb: 'AMENDER_WORKER_HEAP_MB',
  graceMs: 'AMENDER_WORKER_GRACE_MS',
  queueLimit: 'AMENDER_REVIEW_QUEUE_LIMIT',
  nice: 'AMENDER_WORKER_NICE',
} as const;

export const DEFAULT_WORKER_HEAP_MB = 512;
/** Below this a worker cannot even load the engine. */
export const MIN_WORKER_HEAP_MB = 16;
/** The share of a memory limit the workers may fill together: the rest is the main thread's, and native memory's. */
const WORKERS_SHARE_OF_LIMIT = 0.75;

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

/**
 * The most workers a server starts: four per core, at least 16. Each is a thread with its own isolate
 * (tens of MB before any review); past the cores more of them only let more slow reviews run at once,
 * and a value such as 2000 (a typo, a unit mistake) would start that many threads and take the process
 * down, so it is refused at start instead.
 */
export function maxWorkers(parallelism: number): number {
  return Math.max(16, 4 * parallelism);
}

/** The process's memory limit in bytes (a container's cgroup limit), or undefined where there is none. */
export function memoryLimitBytes(): number | undefined {
  const limit = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : undefined;
  // No limit reads as 0, undefined or a huge number (2^64 - 1, or cgroup v1's 2^63 rounded down to a page).
  return limit !== undefined && limit > 0 && limit < 2 ** 50 ? limit : undefined;
}

/**
 * The old-generation heap of each worker when AMENDER_WORKER_HEAP_MB is not set: DEFAULT_WORKER_HEAP_MB,
 * or less under a memory limit, so that `workers` and the spare, each at its limit with its young
 * generation, fit in three quarters of it. A review that fills a worker's heap then costs that worker,
 * as documented, instead of the kernel killing the whole process at the container's limit.
 */
export function defaultWorkerHeapMb(workers: number, limitBytes: number | undefined): number {
  if (limitBytes === undefined) return DEFAULT_WORKER_HEAP_MB;
  const share = Math.floor((limitBytes / 2 ** 20) * WORKERS_SHARE_OF_LIMIT / (Math.max(1, workers) + 1)) - WORKER_YOUNG_GENERATION_MB;
  return Math.max(MIN_WORKER_HEAP_MB, Math.min(DEFAULT_WORKER_HEAP_MB, share));
}

/**
 * The young generation of each worker (resourceLimits.maxYoungGenerationSizeMb; V8 makes it three times a
 * semi-space: two 8 MB semi-spaces and as much for new large objects). Left to V8 (a limit from the
 * machine's memory) the new space grows and shrinks under load, and each time its pages are taken again
 * they fault in afresh: 0.07–0.16 page faults per review on a virtual machine where a fault costs ~15 µs,
 * none with this cap. Under 50 connections (Node 24, seven alternations) the pool used 7 % less CPU per
 * request and its p99 fell by 2–4 ms (bench/JOURNAL.md, stop 30).
 */
export const WORKER_YOUNG_GENERATION_MB = 24;

/**
 * How many nice levels below the main thread the review workers run (Linux; thread-priority.ts). The
 * main thread carries every request (HTTP, the body, handing reviews over, writing answers) and the
 * workers only the reviews: at equal priority, a worker woken with a batch preempted the main thread on
 * its core while the other core idled, and the main thread spent 37 % of its time waiting to run under
 * 50 connections (Node 24, 2 cores, /proc/<pid>/task/<tid>/schedstat). Five levels (a third of the main
 * thread's weight) brought that to 15 % and served about 10 % more reviews a second; 2 and 10 served fewer
 * (bench/JOURNAL.md, stop 40). A review alone on the machine runs as fast: priority only orders threads
 * that wait for the same core.
 */
export const DEFAULT_WORKER_NICE = 5;
/** Linux's lowest priority: a thread's nice value is at most 19. */
export const MAX_NICE = 19;
