import type { ReviewAnswer } from './review.js';

/**
 * What an adapter tells the app about a request beyond the request itself (Hono's `env`, the second
 * argument of `app.fetch`; absent where the adapter has nothing to say).
 */
export interface RequestHints {
  /**
   * Milliseconds the request waited before the app saw it (a serverless adapter's wait for the first load
   * of its policy set): the API server's timeout runs from the request's arrival, so the review's
   * deadline is shortened by it.
   */
  waitedMs?: number;
}

/** What handlers leave on the request context for the access log, and the adapter's hints. */
export interface AppEnv {
  Bindings: RequestHints;
  Variables: {
    review?: ReviewAnswer;
  };
}
