/**
 * The app as the Node server and Lambda builds run it, for bench/light.ts to bundle: Hono's `Response` and
 * `Headers` bound to the light classes of src/adapters/web (esbuild `inject`, as scripts/build.mjs does),
 * and the Lambda adapter's request class, so that a request goes through the app without undici. The
 * policy set is built by this bundle's own modules (a set of the sources' modules is another class). Hono
 * too, for the trivial handler measured the same way.
 */
export { answerReviewText, BodyBudget, createApp, fixedPolicySet, jsonLineLogger } from '../../src/server/index.js';
export { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
export { LambdaRequest } from '../../src/adapters/lambda-request.js';
export { Hono } from 'hono';
