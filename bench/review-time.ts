/**
 * The in-process review time that suite 40 subtracts from a server's CPU per request, measured on the Node
 * that runs the server (suite 40 starts this script under each Node): `answerReviewText` for the
 * pod-create review against the bundled policies, printed as one line `REVIEW_TIME_PREFIX<cpu> <median>`.
 *
 * Two figures, because they answer different questions:
 * - `cpuNs`, what suite 40 subtracts: the process's CPU time (every thread, user + system, as suite 40
 *   reads a server's from /proc) over a run of reviews, divided by their count. It counts what a review
 *   costs the garbage collector and V8's helper threads, as the server's figure does.
 * - `medianNs`, for reference: the median wall time of one review. A young-generation collection falls in
 *   one review of a few hundred, and the helper threads' work in none, so the median leaves both out: on
 *   this machine it was 20–25 % below `cpuNs` on Node 24 (bench/JOURNAL.md, "What stop 27 did").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureAsync } from './lib.js';
import { ROOT } from './servers.js';
import { loadPolicies } from '../src/cli/load.js';
import { nodeCliIO } from '../src/cli/node-io.js';
import { answerReviewText, DEFAULT_LIMITS } from '../src/server/index.js';

export const REVIEW_TIME_PREFIX = 'amender-review-ns ';

export interface ReviewTimes {
  /** CPU nanoseconds per review, every thread of the process, over a run of reviews. */
  cpuNs: number;
  /** Median wall nanoseconds of one review. */
  medianNs: number;
}

/** How long reviews run before anything is measured: V8 is still optimizing the engine after the first few hundred. */
const WARMUP_MS = 2000;
/** How long the CPU run lasts; at least CPU_MIN_REVIEWS reviews either way. */
const CPU_RUN_MS = 2000;
const CPU_MIN_REVIEWS = 2000;

/** The review's CPU time and median wall time in process, on this Node, for `body` against the bundled policies. */
export async function reviewTimes(body: string): Promise<ReviewTimes> {
  const { set } = await loadPolicies(['bundled'], nodeCliIO());
  const review = () => answerReviewText(body, set, DEFAULT_LIMITS.maxJsonDepth);
  for (const end = performance.now() + WARMUP_MS; performance.now() < end; ) await review();
  const median = await measureAsync(review, { minMillis: 1000, warmup: 0, minSamples: 200 });
  const before = process.cpuUsage();
  let reviews = 0;
  for (const end = performance.now() + CPU_RUN_MS; performance.now() < end || reviews < CPU_MIN_REVIEWS; reviews++) await review();
  const used = process.cpuUsage(before);
  return { cpuNs: ((used.user + used.system) * 1000) / reviews, medianNs: median.median };
}

/** The line this script prints. */
export function reviewTimesLine(times: ReviewTimes): string {
  return `${REVIEW_TIME_PREFIX}${times.cpuNs.toFixed(0)} ${times.medianNs.toFixed(0)}`;
}

/** The figures of a line reviewTimesLine printed (suite 40 reads it from a child running another Node). */
export function parseReviewTimesLine(line: string): ReviewTimes {
  const [cpuNs, medianNs] = line.slice(REVIEW_TIME_PREFIX.length).split(' ').map(Number);
  if (!Number.isFinite(cpuNs) || !Number.isFinite(medianNs)) throw new Error(`not a review time line: ${JSON.stringify(line)}`);
  return { cpuNs, medianNs };
}

if (process.argv[1]?.endsWith('review-time.ts')) {
  const body = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
  console.log(reviewTimesLine(await reviewTimes(body)));
}
