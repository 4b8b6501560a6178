/**
 * The Node server's review pool from its settings (src/adapters/pool): undefined with AMENDER_WORKERS=0
 * (reviews evaluated on the main thread, as Lambda and Workers do).
 */
import type { Logger } from '../server/index.js';
import { readPoolSettings, ReviewPool, workerEntryBeside } from './pool/index.js';

export async function createReviewPool(
  env: Readonly<Record<string, string | undefined>>,
  mainUrl: string,
  logger: Logger,
  fail: (message: string) => never,
  memoryLimit: number | undefined,
): Promise<ReviewPool | undefined> {
  const { settings, problems, warnings } = readPoolSettings(env, undefined, memoryLimit);
  if (problems.length > 0) fail(`invalid configuration:\n  ${problems.join('\n  ')}`);
  if (settings.workers === 0) return undefined;
  for (const message of warnings) logger({ level: 'warn', msg: 'review workers may outgrow the memory limit', message });
  let entry;
  try {
    entry = await workerEntryBeside(mainUrl);
  } catch (err) {
    fail((err as Error).message);
  }
  logger({ level: 'info', msg: 'review workers', ...settings, ...(memoryLimit !== undefined ? { memoryLimitMb: Math.floor(memoryLimit / 2 ** 20) } : {}) });
  return new ReviewPool({ ...settings, entry, logger });
}
