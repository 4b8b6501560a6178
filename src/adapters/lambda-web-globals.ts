/**
 * Injected into the Lambda engine script and the Node server's script by the build (esbuild `inject`,
 * scripts/build.mjs): every free `Headers` and `Response` of those scripts, Hono's included, names these
 * classes instead of Node's, so that answering a request does not load undici (lambda-web.ts). Nothing
 * else imports this module.
 */
export { LambdaHeaders as Headers, LambdaResponse as Response } from './lambda-web.js';
