/**
 * The AWS Lambda handler (the engine of dist/lambda, built as one CommonJS script: aws-lambda-entry.ts):
 * a Function URL, an API Gateway HTTP API (payload format 2.0) or REST API (1.0), or an Application Load
 * Balancer in front of the app. Configured by
 * environment variables (serverless-config.ts; infra/lambda/README.md).
 */
import { jsonLineLogger } from '../server/index.js';
import { createLambdaHandler, type LambdaHandler } from './lambda-handler.js';
import { LAMBDA_S3_VARIABLES, lambdaSourceResolvers } from './lambda-sources.js';
import { embeddedPolicyBundle } from './serverless-bundle.js';
import { readServerlessConfig, unknownServerlessVariables } from './serverless-config.js';
import { createServerlessRuntime } from './serverless-runtime.js';
import { markStartup } from './startup-marks.js';

markStartup('modulesLoaded');

/**
 * The handler, once the policy sets have loaded (run during the init phase by aws-lambda-entry.ts, so the
 * first invocation is answered from a loaded set; a bad configuration fails the init with its message).
 */
export async function createAwsLambdaHandler(env: Readonly<Record<string, string | undefined>> = process.env): Promise<LambdaHandler> {
  const config = readServerlessConfig(env);
  const logger = jsonLineLogger((line) => process.stdout.write(line), { minLevel: config.logLevel });
  for (const warning of unknownServerlessVariables(env, LAMBDA_S3_VARIABLES)) logger({ level: 'warn', msg: 'unknown setting', warning });
  const uris = [...config.policySources, ...config.clusters.flatMap((c) => c.sources)];
  const runtime = createServerlessRuntime({
    config,
    resolvers: await lambdaSourceResolvers(uris, env, embeddedPolicyBundle()),
    platform: 'AWS Lambda',
    logger,
  });
  await runtime.ensureLoaded();
  markStartup('policiesReady');
  return createLambdaHandler(runtime, { refreshWaitMs: config.refreshWaitMs, basePath: config.basePath, logger });
}
