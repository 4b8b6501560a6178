/**
 * Entry of the Cloudflare Workers bundle (dist/workers/index.js; wrangler.toml): the app as the module
 * Worker's fetch handler, with the policies bundled at build time and R2 bindings from `env`.
 */
import { embeddedPolicyBundle } from './serverless-bundle.js';
import { createWorkerHandler } from './workers-handler.js';

export default createWorkerHandler(embeddedPolicyBundle());
