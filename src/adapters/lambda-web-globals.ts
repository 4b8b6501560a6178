/**
 * Injected into the Lambda engine script by the build (esbuild `inject`, scripts/build.mjs): every free
 * `Headers` and `Response` of that script, Hono's included, names these classes instead of Node's, so
 * that answering a request does not load undici (lambda-web.ts). Nothing else imports this module.
 */
export { LambdaHeaders as Headers, LambdaResponse as Response } from './lambda-web.js';
