/** A server process's resident memory, read from /proc (Linux): the memory-bound tests run where it exists. */
import { readFileSync } from 'node:fs';

export const hasProc = (() => {
  try {
    readFileSync('/proc/self/status');
    return true;
  } catch {
    return false;
  }
})();

/** The resident set of process `pid`, in MB. */
export const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
