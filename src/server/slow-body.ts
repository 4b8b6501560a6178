/**
 * Telling the adapter that a request's body is slow to arrive. The API server sends a review's body at
 * once; a client that trickles bodies, or sends only headers, holds requests in flight that do nothing.
 * The Node server, at its cap of requests in flight (AMENDER_MAX_REQUESTS), ends the oldest such request
 * to make room for a new one instead of refusing the new one: a client holding every slot with slow
 * streams would otherwise keep the API server's own reviews refused.
 */

/** A request whose adapter wants to know when its body is slow (the Node server's). */
export interface SlowBodyRequest {
  /** The body is still arriving SLOW_BODY_MS after its reading began. */
  bodyIsSlow(): void;
}

/** Tells `request`'s adapter, where it asks, that the body is slow to arrive. */
export function tellBodyIsSlow(request: Request): void {
  const candidate = request as Partial<SlowBodyRequest>;
  if (typeof candidate.bodyIsSlow === 'function') candidate.bodyIsSlow();
}
