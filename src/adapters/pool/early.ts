/**
 * The first review worker, started by the server's entry (node-entry.ts) before the server's own script
 * loads, so that the two load side by side on two cores instead of one after the other: the worker is
 * then ready when the first review comes (Node 24, 50 policies: spawn to first reply 250 → 215 ms). The
 * pool adopts it as its first worker (pool.ts) when it was started with the same script and heap; a
 * worker that failed or exited before that, or that the pool does not adopt, is stopped.
 *
 * The settings are read here only as far as this needs, and anything unusual means no early start (the
 * server reads and checks them properly, and starts its workers itself). This module must stay tiny: it
 * runs before the server's script.
 */
import { Worker } from 'node:worker_threads';
import { SHARED_SLOTS, type WorkerData } from './protocol.js';
import { DEFAULT_WORKER_HEAP_MB, DEFAULT_WORKER_NICE, defaultWorkerHeapMb, defaultWorkers, MAX_NICE, memoryLimitBytes, POOL_VARIABLES, WORKER_YOUNG_GENERATION_MB } from './variables.js';

export interface EarlyWorker {
  worker: Worker;
  shared: Int32Array;
  /** Came online (its script runs). */
  online: boolean;
  /** Failed or exited before the pool took it. */
  lost: boolean;
}

/** What a worker is started with besides its script: its heap (resourceLimits) and its priority below the main thread. */
export interface WorkerShape {
  heapMb: number;
  nice: number;
}

interface Started extends EarlyWorker, WorkerShape {
  url: string;
}

/** Global: the entry that starts the worker and the server script that adopts it each bundle this module. */
const SLOT_KEY = Symbol.for('amender.earlyReviewWorker');
const holder = globalThis as { [SLOT_KEY]?: Started };

const WHOLE_NUMBER = /^\d+$/;

/** A review worker thread running `url`, with its shared memory (protocol.ts), heap limit, young generation and priority. */
export function newReviewWorker(url: URL, { heapMb, nice }: WorkerShape): { worker: Worker; shared: Int32Array } {
  const shared = new Int32Array(new SharedArrayBuffer(SHARED_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  const workerData: WorkerData = { shared: shared.buffer as SharedArrayBuffer, nice };
  const worker = new Worker(url, { workerData, resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
  return { worker, shared };
}

/** The heap config.ts gives a worker when AMENDER_WORKER_HEAP_MB is unset (node:os only under a memory limit: this runs first). */
function defaultHeapMb(workers: string | undefined): number {
  const limit = memoryLimitBytes();
  if (limit === undefined) return DEFAULT_WORKER_HEAP_MB;
  const os = process.getBuiltinModule('node:os') as typeof import('node:os');
  return defaultWorkerHeapMb(workers === undefined ? defaultWorkers(os.availableParallelism()) : Number(workers), limit);
}

/** Starts the first review worker of the server whose worker script is `url`, unless the settings say otherwise. */
export function startEarlyWorker(url: URL, env: Readonly<Record<string, string | undefined>>): void {
  const workers = env[POOL_VARIABLES.workers];
  const heap = env[POOL_VARIABLES.heapMb];
  const niceSetting = env[POOL_VARIABLES.nice];
  if (workers !== undefined && (!WHOLE_NUMBER.test(workers) || Number(workers) === 0)) return;
  if (heap !== undefined && !WHOLE_NUMBER.test(heap)) return;
  if (niceSetting !== undefined && (!WHOLE_NUMBER.test(niceSetting) || Number(niceSetting) > MAX_NICE)) return;
  const shape: WorkerShape = { heapMb: heap === undefined ? defaultHeapMb(workers) : Number(heap), nice: niceSetting === undefined ? DEFAULT_WORKER_NICE : Number(niceSetting) };
  const started: Started = { ...newReviewWorker(url, shape), online: false, lost: false, url: url.href, ...shape };
  const { worker } = started;
  worker.once('online', () => (started.online = true));
  // Until the pool takes it, a failure is only noted (an 'error' without a listener would end the process).
  worker.once('error', () => (started.lost = true));
  worker.once('exit', () => (started.lost = true));
  worker.unref();
  holder[SLOT_KEY] = started;
}

/** The early worker waiting for the pool, if any (for diagnostics and tests; take it with takeEarlyWorker). */
export function pendingEarlyWorker(): Readonly<EarlyWorker> | undefined {
  return holder[SLOT_KEY];
}

/**
 * The early worker, if one was started with this script and shape and is alive; the caller attaches its
 * listeners at once. Any other early worker is stopped. Either way it is taken: a second call finds none.
 */
export function takeEarlyWorker(url: URL, shape: WorkerShape): EarlyWorker | undefined {
  const started = holder[SLOT_KEY];
  holder[SLOT_KEY] = undefined;
  if (!started) return undefined;
  if (started.lost || started.url !== url.href || started.heapMb !== shape.heapMb || started.nice !== shape.nice) {
    void started.worker.terminate();
    return undefined;
  }
  started.worker.removeAllListeners();
  return started;
}
