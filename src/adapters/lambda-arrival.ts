/**
 * How long a request waited before its Lambda invocation began. The API server's `?timeout=` runs from
 * when it sent the review; a cold start (the runtime, the bundle, the function's init) and the front
 * door's queueing pass before the handler is called. Function URLs and API Gateway HTTP APIs stamp the
 * request's arrival as `requestContext.timeEpoch`, REST APIs as `requestContext.requestTimeEpoch` (Unix
 * milliseconds, by AWS's clock); a load balancer's event has no stamp.
 */

/**
 * The longest wait before an invocation taken at its word: the API server waits at most 30 s for a
 * webhook (timeoutSeconds' maximum), so an older stamp is another clock's (a replayed or sample event, a
 * skewed host), not a request anyone still waits for.
 */
const MAX_PLAUSIBLE_WAIT_MS = 30_000;

/**
 * Milliseconds between the request's arrival stamp in `event` and `invokedAt` (Date.now() at the
 * handler's start): 0 without a stamp, for a stamp ahead of this host's clock (skew), and for one older
 * than MAX_PLAUSIBLE_WAIT_MS.
 */
export function waitedBeforeInvocationMs(event: unknown, invokedAt: number): number {
  const context = typeof event === 'object' && event !== null ? (event as { requestContext?: unknown }).requestContext : undefined;
  if (typeof context !== 'object' || context === null) return 0;
  const { timeEpoch, requestTimeEpoch } = context as { timeEpoch?: unknown; requestTimeEpoch?: unknown };
  const stamp = typeof timeEpoch === 'number' ? timeEpoch : requestTimeEpoch;
  if (typeof stamp !== 'number' || !Number.isFinite(stamp)) return 0;
  const waited = invokedAt - stamp;
  return waited > 0 && waited <= MAX_PLAUSIBLE_WAIT_MS ? Math.floor(waited) : 0;
}
