/**
 * A burst of large reviews in a container's memory limit (README, "Isolation"; decision record 0006): the
 * built server in a 512 MiB memory cgroup, 32 reviews of 6.1 MiB sent at once, through
 * scripts/memory-burst.mjs. Before the body budget and the batch bound, 16 such reviews had the kernel
 * kill the server. Needs root and a memory cgroup controller; where a memory cgroup with a limit cannot
 * be made (an unprivileged container), it is skipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../node/built.js';

/** Whether a memory cgroup with a limit can be made here (root, and a memory controller to use). */
function memoryCgroupUsable(): boolean {
  const v2 = '/sys/fs/cgroup/cgroup.controllers';
  const isV2 = existsSync(v2) && readFileSync(v2, 'utf8').includes('memory');
  const probe = join(isV2 ? '/sys/fs/cgroup' : '/sys/fs/cgroup/memory', `amender-probe-${process.pid}`);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  try {
    writeFileSync(join(probe, isV2 ? 'memory.max' : 'memory.limit_in_bytes'), String(512 * 2 ** 20));
    // As the script does: a process joins the cgroup, then runs.
    return spawnSync('/bin/sh', ['-c', `echo $$ > ${probe}/cgroup.procs && true`]).status === 0;
  } catch {
    return false;
  } finally {
    removeCgroup(probe);
  }
}

/** Removes an emptied cgroup; the kernel may take a moment to let go of a process that has just ended. */
function removeCgroup(dir: string): void {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      rmdirSync(dir);
      return;
    } catch {
      spawnSync('sleep', ['0.02']);
    }
  }
}

describe('a burst of large reviews in a 512 MiB memory limit', () => {
  it.runIf(memoryCgroupUsable())('answers every one of 32 reviews of 6.1 MiB sent at once, and the kernel kills nothing (the previous build: killed in 4 of 5 runs)', { timeout: 120_000 }, () => {
    ensureBuilt();
    const run = spawnSync(process.execPath, [`${ROOT}scripts/memory-burst.mjs`, '--reviews', '32', '--limit-mb', '512'], { encoding: 'utf8', timeout: 110_000 });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(/killed by the kernel for memory: 0; server still running/);
    // Answered: patched; on a loaded machine perhaps denied by failure policy at the deadline, or refused
    // 503 after waiting for room as long as the review could have run; never lost.
    const answered = [...output.matchAll(/^\s+(\d+)\s+(200|503)\b/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(answered, output).toBe(32);
    expect(output).not.toMatch(/no answer/);
  });
});
