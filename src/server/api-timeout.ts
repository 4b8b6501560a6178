/**
 * How long the API server waits for this review. It calls a webhook's URL with `?timeout=<d>` (Go's
 * Duration text: the webhook's timeoutSeconds, or less when the API request's own deadline is nearer,
 * rounded up to a whole second), and past it gives up and applies the *webhook's* failurePolicy to the
 * whole request: a slow policy whose own failurePolicy is Ignore would then fail the admission (a webhook
 * with failurePolicy: Fail) instead of being skipped, and one with Fail would be reported by the API
 * server as a timeout rather than by name. So a review's deadline is the smaller of the configured one
 * (AMENDER_REVIEW_DEADLINE_MS) and what `amender webhook-config` allows for that timeout (80 % of it, and
 * at least 500 ms before it), less the time the request has already spent here.
 */
import { tryParseDuration } from '../go/index.js';
import { maxReviewDeadlineMs } from '../webhook-config/index.js';

/** Milliseconds in the `timeout` query parameter; undefined when absent, not a Go duration, or not positive. */
export function apiServerTimeoutMs(param: string | undefined): number | undefined {
  if (param === undefined) return undefined;
  const nanos = tryParseDuration(param);
  return nanos === undefined || nanos <= 0n ? undefined : Number(nanos) / 1e6;
}

/**
 * Milliseconds left, `elapsedMs` after the request arrived, before its reply must be on its way for the API
 * server to read it: of its timeout (ms; undefined: none sent, Infinity), the part a review may take by
 * the rule `amender webhook-config` checks (maxReviewDeadlineMs: 80 %, at least 500 ms before it).
 */
export function apiServerLeftMs(apiServerTimeout: number | undefined, elapsedMs: number): number {
  return apiServerTimeout === undefined ? Number.POSITIVE_INFINITY : maxReviewDeadlineMs(apiServerTimeout / 1000) - elapsedMs;
}

/** The deadline of a review: `configuredMs`, shortened to fit the API server's timeout when it sent one. */
export function reviewDeadlineMs(configuredMs: number, apiServerTimeout: number | undefined, elapsedMs: number): number {
  if (apiServerTimeout === undefined) return configuredMs;
  const fits = apiServerLeftMs(apiServerTimeout, elapsedMs);
  // At least a millisecond: a review with no time left is answered at once by its policies' failurePolicy.
  return Math.max(1, Math.min(configuredMs, Math.floor(fits)));
}

/**
 * A request whose platform ends it at a known time (a Lambda invocation at its timeout): `timeLeftMs()`
 * is what it has left for its answer. Past that the platform answers nothing of ours, so a review's
 * deadline is shortened to fit it, as to the API server's timeout.
 */
export interface TimeLeftRequest {
  timeLeftMs(): number;
}

/** Milliseconds `request` has left by its platform's clock; undefined when its adapter does not know. */
export function platformTimeLeftMs(request: Request): number | undefined {
  const timeLeft = (request as Partial<TimeLeftRequest>).timeLeftMs;
  return typeof timeLeft === 'function' ? timeLeft.call(request) : undefined;
}
