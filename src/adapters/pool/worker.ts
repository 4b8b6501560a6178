/**
 * Entry of a review worker thread (dist/node/worker.js): serves reviews with the engine as built
 * (serve.ts).
 */
import { serveReviews } from './serve.js';

serveReviews();
