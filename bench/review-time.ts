/**
 * The in-process review time that suite 40 subtracts from a server's CPU per request, measured on the Node
 * that runs the server (suite 40 starts this script under each Node): the median of `answerReviewText`
 * for the pod-create review against the bundled policies, printed as one line `REVIEW_TIME_PREFIX<ns>`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measureAsync } from './lib.js';
import { ROOT } from './servers.js';
import { loadPolicies } from '../src/cli/load.js';
import { nodeCliIO } from '../src/cli/node-io.js';
import { answerReviewText, DEFAULT_LIMITS } from '../src/server/index.js';

export const REVIEW_TIME_PREFIX = 'amender-review-ns ';

/** Median nanoseconds of one in-process review of `body` against the bundled policies, on this Node. */
export async function reviewTimeNs(body: string): Promise<number> {
  const { set } = await loadPolicies(['bundled'], nodeCliIO());
  const review = await measureAsync(() => answerReviewText(body, set, DEFAULT_LIMITS.maxJsonDepth), { minMillis: 1000, warmup: 500, minSamples: 200 });
  return review.median;
}

if (process.argv[1]?.endsWith('review-time.ts')) {
  const body = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
  console.log(`${REVIEW_TIME_PREFIX}${await reviewTimeNs(body)}`);
}
