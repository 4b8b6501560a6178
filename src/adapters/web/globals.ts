/**
 * Injected into the Lambda engine script and the Node server's script by the build (esbuild `inject`,
 * scripts/build.mjs): every free `Headers` and `Response` of those scripts, Hono's included, names these
 * classes instead of Node's, so that answering a request does not load undici (index.ts). Nothing
 * else imports this module.
 */
export { LightHeaders as Headers, LightResponse as Response } from './index.js';
