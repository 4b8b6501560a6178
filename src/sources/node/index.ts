/**
 * Node sources (`node:*`, the AWS SDK): folders (`file://DIR`, a plain path) and S3 (`s3://bucket/prefix`),
 * plus what the core offers (bundled). For the Node server and Lambda.
 *
 *   nodeSourceResolvers({ env, bundle?, bundledFolder?, s3Client? }) → SourceResolvers   for resolveSources(uris, ...)
 *   directorySource({ uri, path }), s3Source({ uri, client, bucket, prefix })
 *   readS3Settings(env) / await createS3Client(settings, overrides?)   (loads the AWS SDK)
 *
 * The build step (`bundlePolicyFolder`, ./bundle-folder.ts) is imported from its own module, so the
 * server bundles that import this one do not carry it.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { PolicyBundle } from '../bundle.js';
import { bundledSource } from '../bundled.js';
import type { SourceResolvers } from '../resolve.js';
import { directorySource } from './directory.js';
import { s3Source } from './s3.js';
import { createS3Client, readS3Settings } from './s3-client.js';

export { directorySource, type DirectorySourceOptions } from './directory.js';
export { s3Source, type S3SourceOptions } from './s3.js';
export { createS3Client, readS3Settings, S3_ENVIRONMENT_VARIABLES, type S3Settings } from './s3-client.js';

export interface NodeResolverOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** The bundled set, when the build embedded one. */
  bundle?: PolicyBundle;
  /** Without an embedded bundle: the folder `bundled` reads (the repository's `policies/`). */
  bundledFolder?: string;
  /** A client to use for every s3:// source; by default one is made from `env` on first use. */
  s3Client?: S3Client;
}

export function nodeSourceResolvers(options: NodeResolverOptions): SourceResolvers {
  let client: Promise<S3Client> | undefined;
  const shared = () =>
    (client ??= (options.s3Client ? Promise.resolve(options.s3Client) : createS3Client(readS3Settings(options.env))).catch((err: unknown) => {
      client = undefined;
      throw err;
    }));
  return {
    directory: (u) => directorySource({ uri: u.uri, path: u.path }),
    s3: (u) => {
      if (!options.s3Client) readS3Settings(options.env); // a bad setting is a configuration error, found now
      return s3Source({ uri: u.uri, client: shared, bucket: u.bucket, prefix: u.prefix });
    },
    ...(options.bundle
      ? { bundled: () => bundledSource(options.bundle!) }
      : options.bundledFolder !== undefined
        ? { bundled: () => directorySource({ uri: 'bundled', path: options.bundledFolder! }) }
        : {}),
  };
}
