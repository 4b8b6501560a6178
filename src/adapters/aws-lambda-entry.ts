/**
 * Entry of the AWS Lambda bundle (dist/lambda/index.mjs, handler `index.handler`): compiles the engine
 * (engine.cjs beside this file, aws-lambda.ts built as one CommonJS script) with the V8 code cache the
 * build took after a warm-up review (script-cache.ts), then creates the handler during the init phase,
 * so the first invocation is answered from a loaded set; a bad configuration fails the init with its
 * message.
 */
import { fileURLToPath } from 'node:url';
import type { LambdaHandler } from './lambda-handler.js';
import { loadCachedScript, type ScriptCacheStatus } from './script-cache.js';

type Engine = typeof import('./aws-lambda.js');

const engine = loadCachedScript<Engine>(fileURLToPath(new URL('./engine.cjs', import.meta.url)));

/** What became of the code cache at this start (`used`, `rejected`, `missing`, `corrupt`, `disabled`). */
export const codeCache: ScriptCacheStatus = engine.cache;

export const handler: LambdaHandler = await engine.exports.createAwsLambdaHandler();

/** For the build's warm-up run (scripts/compile-cache.mjs): writes engine.cjs's code cache for this V8. */
export { writeScriptCaches } from './script-cache.js';
