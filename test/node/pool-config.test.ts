/**
 * The review pool's settings (src/adapters/pool/config.ts): the default worker count, and the default
 * heap of each worker under a memory limit (a container's), so that a review filling its worker's heap
 * costs that worker rather than the whole process at the container's limit.
 */
import { describe, expect, it } from 'vitest';
import { memoryLimitBytes, readPoolSettings } from '../../src/adapters/pool/index.js';

const MiB = 2 ** 20;

describe('readPoolSettings', () => {
  it('gives each worker 512 MB of heap without a memory limit', () => {
    expect(readPoolSettings({}, 3, undefined)).toEqual({ settings: { workers: 2, heapMb: 512, graceMs: 1000, queueLimit: 128, nice: 5 }, problems: [], warnings: [] });
  });

  it('sizes the heaps from a memory limit: the workers and the spare in three quarters of it', () => {
    // 512 MiB, 2 workers: 384 MB / 3 = 128, less the 24 MB young generation.
    expect(readPoolSettings({}, 3, 512 * MiB).settings.heapMb).toBe(104);
    expect(readPoolSettings({}, 2, 256 * MiB).settings.heapMb).toBe(40);
    expect(readPoolSettings({ AMENDER_WORKERS: '1' }, 8, 512 * MiB).settings.heapMb).toBe(168);
    // Never more than without a limit, never less than a worker needs to load the engine.
    expect(readPoolSettings({}, 2, 64 * 1024 * MiB).settings.heapMb).toBe(512);
    expect(readPoolSettings({}, 2, 96 * MiB).settings.heapMb).toBe(16);
    expect(readPoolSettings({}, 3, 512 * MiB).warnings).toEqual([]);
  });

  it('keeps a heap set explicitly, and warns when the heaps can outgrow the memory limit', () => {
    const { settings, problems, warnings } = readPoolSettings({ AMENDER_WORKER_HEAP_MB: '512' }, 3, 512 * MiB);
    expect(settings.heapMb).toBe(512);
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      "AMENDER_WORKER_HEAP_MB=512: 2 review workers and the spare may hold 1608 MB of heap, over the memory limit of 512 MB; a review that fills its worker's heap would have the whole process killed instead of that worker (unset it to size the heaps from the limit)",
    ]);
    expect(readPoolSettings({ AMENDER_WORKER_HEAP_MB: '100' }, 3, 512 * MiB).warnings).toEqual([]);
    expect(readPoolSettings({ AMENDER_WORKER_HEAP_MB: '512', AMENDER_WORKERS: '0' }, 3, 512 * MiB).warnings).toEqual([]);
  });

  it('refuses more workers than four per core (at least 16): a typo must not start thousands of threads', () => {
    expect(readPoolSettings({ AMENDER_WORKERS: '2000' }, 2, undefined).problems).toEqual(['AMENDER_WORKERS: expected an integer from 0 to 16, got "2000"']);
    expect(readPoolSettings({ AMENDER_WORKERS: '16' }, 2, undefined)).toMatchObject({ settings: { workers: 16 }, problems: [] });
    expect(readPoolSettings({ AMENDER_WORKERS: '128' }, 32, undefined)).toMatchObject({ settings: { workers: 128 }, problems: [] });
    expect(readPoolSettings({ AMENDER_WORKERS: '129' }, 32, undefined).problems).toHaveLength(1);
  });

  it('runs the workers 0 to 19 nice levels below the main thread, 5 unless set', () => {
    expect(readPoolSettings({ AMENDER_WORKER_NICE: '0' }, 2, undefined).settings.nice).toBe(0);
    expect(readPoolSettings({ AMENDER_WORKER_NICE: '19' }, 2, undefined).settings.nice).toBe(19);
    for (const value of ['20', '-1', '2.5', 'low']) {
      expect(readPoolSettings({ AMENDER_WORKER_NICE: value }, 2, undefined).problems, value).toEqual([expect.stringMatching(/^AMENDER_WORKER_NICE: expected an integer from 0 to 19/)]);
    }
  });

  it('takes a grace period of at most a day, which a Node timer can hold (not 3000000000 ms fired at once)', () => {
    expect(readPoolSettings({ AMENDER_WORKER_GRACE_MS: '86400000' }, 2, undefined).settings.graceMs).toBe(86_400_000);
    for (const value of ['86400001', '3000000000', '0']) {
      expect(readPoolSettings({ AMENDER_WORKER_GRACE_MS: value }, 2, undefined).problems, value).toEqual([`AMENDER_WORKER_GRACE_MS: expected whole milliseconds from 1 to 86400000 (a day), got "${value}"`]);
    }
  });

  it('reads no limit where the system sets none (this machine: a number below 2^50 or undefined)', () => {
    const limit = memoryLimitBytes();
    expect(limit === undefined || (Number.isSafeInteger(limit) && limit > 0)).toBe(true);
  });
});
