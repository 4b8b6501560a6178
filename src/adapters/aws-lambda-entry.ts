/**
 * Entry of the AWS Lambda bundle (dist/lambda/index.mjs, handler `index.handler`): the shipped compile
 * cache first (compile-cache.ts), then the handler module (aws-lambda.ts, whose init loads the policy
 * sets), imported only now so that its modules compile with the cache on.
 */
import { enableShippedCompileCache } from './compile-cache.js';
import type { LambdaHandler } from './lambda-handler.js';

enableShippedCompileCache(import.meta.url);
export const handler: LambdaHandler = (await import('./aws-lambda.js')).handler;
