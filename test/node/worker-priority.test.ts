/**
 * The review workers run below the main thread's priority (AMENDER_WORKER_NICE, src/adapters/pool/
 * variables.ts says why), so that a worker woken with reviews does not take the core of the thread that
 * carries every request. Read from the threads of the built server (/proc/<pid>/task/<tid>: Linux, where
 * a thread's nice value is its own).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './built.js';
import { startBundle, waitFor, type Running } from './bundle.js';

const REVIEW = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');

interface Thread {
  tid: number;
  name: string;
  nice: number;
}

function threads(pid: number): Thread[] {
  const out: Thread[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the name (which may hold spaces): state is the 3rd field, nice the 19th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ tid: Number(tid), name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), nice: Number(fields[16]) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

async function reviewed(server: Running): Promise<void> {
  const res = await fetch(`${server.url}/mutate`, { method: 'POST', body: REVIEW, headers: { 'content-type': 'application/json' } });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { response: { patch?: string } }).response.patch).toBeTruthy();
}

/** This process's nice value, which the server inherits. */
function ownNice(): number {
  return threads(process.pid).find((t) => t.tid === process.pid)!.nice;
}

describe.runIf(process.platform === 'linux')("the review workers' priority", () => {
  beforeAll(() => ensureBuilt());

  it('is 5 nice levels below the main thread by default, and AMENDER_WORKER_NICE sets it', { timeout: 60_000 }, async () => {
    for (const [setting, below] of [[undefined, 5], ['9', 9]] as const) {
      const server = await startBundle({ AMENDER_WORKERS: '2', ...(setting === undefined ? {} : { AMENDER_WORKER_NICE: setting }) });
      try {
        const pid = server.child.pid!;
        const main = ownNice();
        const lowered = Math.min(19, main + below);
        await reviewed(server);
        // Node 20 gives its threads no names: the workers are the two threads at their priority (each
        // lowers its own as it starts, the second within two seconds), every other one (V8's helpers,
        // libuv's) keeps the main thread's.
        await waitFor(`two threads at nice ${lowered}, AMENDER_WORKER_NICE=${setting}`, () => threads(pid).filter((t) => t.nice === lowered).length === 2);
        const all = threads(pid);
        expect(all.find((t) => t.tid === pid)!.nice).toBe(main);
        expect(all.filter((t) => t.nice !== lowered).every((t) => t.nice === main)).toBe(true);
        // Where threads have names (Node 22 and later), those two are the worker threads.
        const named = all.filter((t) => t.name === 'WorkerThread');
        if (named.length > 0) expect(named.map((t) => t.nice)).toEqual([lowered, lowered]);
        await reviewed(server);
      } finally {
        await server.stop();
      }
    }
  });

  it('is the main thread\'s with AMENDER_WORKER_NICE=0', { timeout: 30_000 }, async () => {
    const server = await startBundle({ AMENDER_WORKERS: '2', AMENDER_WORKER_NICE: '0' });
    try {
      await Promise.all(Array.from({ length: 20 }, () => reviewed(server)));
      await new Promise((resolve) => setTimeout(resolve, 2500));
      await Promise.all(Array.from({ length: 20 }, () => reviewed(server)));
      expect(threads(server.child.pid!).map((t) => t.nice).every((nice) => nice === ownNice())).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('refuses a value outside 0 to 19 at start, naming the variable', { timeout: 30_000 }, async () => {
    for (const value of ['20', '-1', 'low']) {
      await expect(startBundle({ AMENDER_WORKER_NICE: value })).rejects.toThrow(/AMENDER_WORKER_NICE/);
    }
  });
});
