/**
 * The policy sources of the Lambda build: the bundled set, and — loaded only when a configured source
 * needs them, so a bundled-only function never loads the AWS SDK at cold start — folders (`file://`, e.g.
 * a Lambda layer under /opt) and S3 (`s3://`, through the function's role).
 */
import { bundledSource, parseSourceUri, SourceError, type PolicyBundle, type SourceResolvers } from '../sources/index.js';

/** Whether any of `uris` is served by the Node sources (folders, S3). Unparsable URIs are left to resolveSources. */
function needsNodeSources(uris: readonly string[]): boolean {
  return uris.some((uri) => {
    try {
      const kind = parseSourceUri(uri).kind;
      return kind === 'directory' || kind === 's3';
    } catch {
      return false;
    }
  });
}

export async function lambdaSourceResolvers(
  uris: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  bundle: PolicyBundle | undefined,
): Promise<SourceResolvers> {
  if (needsNodeSources(uris)) {
    const { nodeSourceResolvers } = await import('../sources/node/index.js');
    return nodeSourceResolvers({ env, ...(bundle ? { bundle } : {}) });
  }
  // Folders and S3 stay available (none of `uris` is one, so none is made here): a source Lambda cannot
  // serve (r2://) is then refused naming every kind it can, not `bundled` alone.
  const notLoaded = (uri: { uri: string }): never => {
    throw new SourceError(uri.uri, 'the Node sources were not loaded: this URI was not among those configured');
  };
  return { ...(bundle ? { bundled: () => bundledSource(bundle) } : {}), directory: notLoaded, s3: notLoaded };
}

/**
 * The S3 client's variables (sources/node/s3-client.ts S3_ENVIRONMENT_VARIABLES, named here so that
 * knowing them does not load that module at cold start; a test holds the two lists equal).
 */
export const LAMBDA_S3_VARIABLES: readonly string[] = ['AMENDER_S3_ENDPOINT', 'AMENDER_S3_FORCE_PATH_STYLE'];
