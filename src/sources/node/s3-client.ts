/**
 * The S3 client of the `s3://` sources, from the usual AWS variables plus Amender's endpoint override:
 *
 *   AWS_REGION (or AWS_DEFAULT_REGION)   region (default us-east-1)
 *   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE, web identity, the Lambda
 *   role, ...                            credentials, through the SDK's default provider chain
 *   AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL  read by the SDK itself
 *   AMENDER_S3_ENDPOINT                  endpoint of an S3-compatible store (MinIO, R2's S3 API, Ceph...)
 *   AMENDER_S3_FORCE_PATH_STYLE          true|false: bucket in the path, not the host name (default true
 *                                        when AMENDER_S3_ENDPOINT is set, as most such stores need)
 *
 * One client serves every s3:// source of the process (all clusters), so connections are shared, and at most
 * S3_REQUESTS_IN_FLIGHT of their requests run at once (s3-request-slots.ts), over S3_SOCKETS sockets. The AWS
 * SDK is loaded when the first client is made, so a server without s3:// sources never loads it (it is
 * most of the Node bundle: loading it would double the cold start).
 */
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { boolean, httpUrl, optional, readSettings, type Setting } from '../../settings/index.js';

export type S3Sdk = typeof import('@aws-sdk/client-s3');

let sdk: Promise<S3Sdk> | undefined;

/**
 * The AWS SDK's S3 module, loaded on first use. The SDK is CommonJS: a bundle that splits it into a chunk
 * of its own (the Lambda build) may hand its exports over as `default` only.
 */
export function loadS3Sdk(): Promise<S3Sdk> {
  sdk ??= import('@aws-sdk/client-s3').then(
    (mod) => ((mod as { S3Client?: unknown }).S3Client ? mod : (mod as unknown as { default: S3Sdk }).default),
    (err: unknown) => {
      sdk = undefined;
      throw err;
    },
  );
  return sdk;
}

export interface S3Settings {
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
}

export const S3_ENVIRONMENT_VARIABLES = ['AMENDER_S3_ENDPOINT', 'AMENDER_S3_FORCE_PATH_STYLE'] as const;

const S3_SETTINGS = {
  endpoint: { variable: 'AMENDER_S3_ENDPOINT', type: optional(httpUrl), default: undefined } satisfies Setting<string | undefined>,
  /** Default: true with an endpoint of its own (MinIO, Ceph, R2's S3 API), else false. */
  forcePathStyle: { variable: 'AMENDER_S3_FORCE_PATH_STYLE', type: optional(boolean), default: undefined } satisfies Setting<boolean | undefined>,
};

/** The settings, or an Error listing what is wrong. */
export function readS3Settings(env: Readonly<Record<string, string | undefined>>): S3Settings {
  const problems: string[] = [];
  // The AWS SDK's own variables, read as the SDK reads them.
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  const { endpoint, forcePathStyle } = readSettings(S3_SETTINGS, env, problems);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { region, forcePathStyle: forcePathStyle ?? endpoint !== undefined, ...(endpoint !== undefined ? { endpoint } : {}) };
}

/** Milliseconds one S3 request may wait for its answer, and a connection may stay idle mid-answer. */
export const S3_REQUEST_TIMEOUT_MS = 10_000;
/** Sockets of the client's pool (the SDK's default is 50), a few more than S3_REQUESTS_IN_FLIGHT. */
export const S3_SOCKETS = 72;

/**
 * The request handler's options: a store that accepts a connection and never answers, or stops sending
 * a body halfway, fails that request (a TimeoutError) instead of holding it until the refresh's deadline.
 * The SDK's `requestTimeout` alone only logs a warning (`throwOnRequestTimeout` makes it an error) and
 * ends once the headers arrived; `socketTimeout` covers a body that stops. Options given in `overrides`
 * (tests, embedding) replace these one by one; a handler instance given there is used as it is.
 */
function handlerOptions(given: S3ClientConfig['requestHandler']): S3ClientConfig['requestHandler'] {
  const isOptions = given === undefined || (typeof given === 'object' && given !== null && typeof (given as { handle?: unknown }).handle !== 'function');
  if (!isOptions) return given;
  const options = (given ?? {}) as { requestTimeout?: number; socketTimeout?: number };
  const requestTimeout = options.requestTimeout ?? S3_REQUEST_TIMEOUT_MS;
  const pool = { maxSockets: S3_SOCKETS };
  return { connectionTimeout: 3_000, throwOnRequestTimeout: true, socketTimeout: options.socketTimeout ?? requestTimeout, httpAgent: pool, httpsAgent: pool, ...options, requestTimeout };
}

/**
 * A client with bounded retries and timeouts (a refresh must end; the last good set covers a slow
 * store). `overrides` is for tests and embedding (explicit credentials, middleware).
 */
export async function createS3Client(settings: S3Settings, overrides: S3ClientConfig = {}): Promise<S3Client> {
  const { S3Client } = await loadS3Sdk();
  return new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    maxAttempts: 2,
    ...overrides,
    requestHandler: handlerOptions(overrides.requestHandler),
  });
}
