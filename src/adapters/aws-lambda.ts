/**
 * Entry of the AWS Lambda bundle (dist/lambda/index.mjs, handler `index.handler`): a Function URL or an
 * API Gateway HTTP API (payload format 2.0) in front of the app. Configured by environment variables
 * (serverless-config.ts; infra/lambda/README.md). The policy sets load during the init phase, so the
 * first invocation is answered from a loaded set; a bad configuration fails the init with its message.
 */
import { jsonLineLogger } from '../server/index.js';
import { createLambdaHandler, type LambdaHandler } from './lambda-handler.js';
import { lambdaSourceResolvers } from './lambda-sources.js';
import { embeddedPolicyBundle } from './serverless-bundle.js';
import { readServerlessConfig } from './serverless-config.js';
import { createServerlessRuntime } from './serverless-runtime.js';
import { markStartup } from './startup-marks.js';

markStartup('modulesLoaded');

const env = process.env;
const config = readServerlessConfig(env);
const logger = jsonLineLogger((line) => process.stdout.write(line), { minLevel: config.logLevel });
const uris = [...config.policySources, ...config.clusters.flatMap((c) => c.sources)];
const runtime = createServerlessRuntime({
  config,
  resolvers: await lambdaSourceResolvers(uris, env, embeddedPolicyBundle()),
  platform: 'AWS Lambda',
  logger,
});
await runtime.ensureLoaded();
markStartup('policiesReady');

export const handler: LambdaHandler = createLambdaHandler(runtime, { refreshWaitMs: config.refreshWaitMs });
