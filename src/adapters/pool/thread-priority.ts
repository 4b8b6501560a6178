/**
 * The scheduling priority of the calling thread (a review worker lowers its own: variables.ts,
 * DEFAULT_WORKER_NICE says why). Linux only: there a thread has an id of its own (/proc/thread-self
 * names it) and setpriority() on that id changes that thread alone. Raising a nice value needs no
 * privilege; where it cannot be done (another system, no /proc) the thread keeps its priority, which
 * changes how fast reviews are served under load, not what they answer.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { MAX_NICE } from './variables.js';

/**
 * Sets the calling thread's nice value `by` above the main thread's (at most 19): called again, it
 * changes nothing. Returns the new value, or undefined where it could not.
 */
export function lowerThreadPriority(by: number): number | undefined {
  if (by <= 0 || process.platform !== 'linux') return undefined;
  try {
    // "<pid>/task/<tid>"
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0) return undefined;
    // The main thread's id is the process's.
    const nice = Math.min(MAX_NICE, getPriority(process.pid) + by);
    setPriority(tid, nice);
    return nice;
  } catch {
    return undefined;
  }
}
