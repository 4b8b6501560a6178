/**
 * The webhook's `timeoutSeconds` and Amender's review deadline (AMENDER_REVIEW_DEADLINE_MS) are tied: the
 * deadline must end before the API server gives up on the call, with a margin for the network and the
 * API server's own work, or the API server's timeout wins and applies the *webhook's* failurePolicy to the
 * whole request instead of Amender answering each policy by its own. The rule: the deadline is at most
 * 80% of the timeout and leaves at least 500 ms (timeoutSeconds 10 ↔ 8000 ms, the defaults of both). The
 * server applies the same rule to each request from the API server's `?timeout=` (src/server/api-timeout.ts);
 * a deadline set to fit also holds where a proxy drops the query.
 */
import { DEFAULT_REVIEW_DEADLINE_MS } from '../guard/index.js';

/** The least time left between the end of the review deadline and the webhook's timeout. */
export const MIN_DEADLINE_MARGIN_MS = 500;

/** The longest review deadline that fits a webhook timeout. */
export function maxReviewDeadlineMs(timeoutSeconds: number): number {
  return Math.min(Math.floor(timeoutSeconds * 800), timeoutSeconds * 1000 - MIN_DEADLINE_MARGIN_MS);
}

export interface DeadlineCheck {
  /** The deadline judged: the one given, else the server's default. */
  deadlineMs: number;
  maxDeadlineMs: number;
  fits: boolean;
  /** One line for the operator. */
  note: string;
}

/** Whether `deadlineMs` (default: the server's default) fits `timeoutSeconds`, and what to set if not. */
export function checkReviewDeadline(timeoutSeconds: number, deadlineMs: number = DEFAULT_REVIEW_DEADLINE_MS): DeadlineCheck {
  const maxDeadlineMs = maxReviewDeadlineMs(timeoutSeconds);
  const fits = deadlineMs <= maxDeadlineMs;
  const note = fits
    ? `review deadline ${deadlineMs} ms fits timeoutSeconds ${timeoutSeconds} (AMENDER_REVIEW_DEADLINE_MS at most ${maxDeadlineMs})`
    : `review deadline ${deadlineMs} ms does not fit timeoutSeconds ${timeoutSeconds}: the server shortens each review to ${maxDeadlineMs} ms from the API server's ?timeout=, but set AMENDER_REVIEW_DEADLINE_MS to at most ${maxDeadlineMs} on the server (a proxy may drop the query), or raise --timeout-seconds`;
  return { deadlineMs, maxDeadlineMs, fits, note };
}
