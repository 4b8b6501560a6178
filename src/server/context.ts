import type { ReviewAnswer } from './review.js';

/** What handlers leave on the request context for the access log. */
export interface AppEnv {
  Variables: {
    review?: ReviewAnswer;
  };
}
