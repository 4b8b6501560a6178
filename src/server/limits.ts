import { DEFAULT_MAX_VALUE_BYTES, DEFAULT_REVIEW_DEADLINE_MS } from '../guard/index.js';
import { DEFAULT_MAX_DEPTH } from '../json/index.js';

/** What one request may cost the server. */
export interface Limits {
  /** Largest request body accepted; larger → 413. */
  maxBodyBytes: number;
  /** Deepest JSON nesting accepted; deeper → 400. */
  maxJsonDepth: number;
  /** Time allowed to receive the whole body once the handler starts reading it; slower → 408. */
  bodyTimeoutMs: number;
  /**
   * Time one review may take from its arrival (a worker pool's queue included); past it, the policy in progress and those not yet run are
   * answered by their failurePolicy. Keep it below the webhook's `timeoutSeconds` with a margin for the
   * network (8 s for the default 10 s), or the API server gives up first and applies the webhook's own
   * failurePolicy.
   */
  reviewDeadlineMs: number;
  /** Largest value (string, list, patch) a review may build; larger is an error of that policy. */
  maxValueBytes: number;
}

/**
 * The API server refuses request bodies over 3 MiB, and an UPDATE review carries both `object` and
 * `oldObject`, so a legitimate review can approach twice that plus the envelope: 8 MiB by default.
 */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxBodyBytes: 8 * 1024 * 1024,
  maxJsonDepth: DEFAULT_MAX_DEPTH,
  bodyTimeoutMs: 10_000,
  reviewDeadlineMs: DEFAULT_REVIEW_DEADLINE_MS,
  maxValueBytes: DEFAULT_MAX_VALUE_BYTES,
});

export function resolveLimits(partial: Partial<Limits> = {}): Limits {
  const limits = { ...DEFAULT_LIMITS, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`limit ${key} must be a positive integer, got ${value}`);
  }
  if (limits.maxJsonDepth > DEFAULT_MAX_DEPTH) {
    throw new RangeError(`limit maxJsonDepth cannot exceed ${DEFAULT_MAX_DEPTH} (walkers recurse), got ${limits.maxJsonDepth}`);
  }
  return limits;
}
