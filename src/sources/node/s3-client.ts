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
 * S3_REQUESTS_IN_FLIGHT of their requests run at once (see requestSlot). The AWS
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

/**
 * S3 requests one client runs at once, over every source (every cluster) sharing it: fewer than the
 * sockets of its pool (S3_SOCKETS), so a request that runs always has a socket. Beyond it, a request
 * waits in Amender's queue (requestSlot), where the SDK's timers have not started: the SDK starts its
 * 3 s connectionTimeout and 10 s requestTimeout when a request is made, not when it gets a socket, so
 * requests queued in its socket pool behind a slow but working store timed out although each one, once
 * sent, was answered in time. The wait itself ends at the refresh's deadline (its signal).
 * Measured (test/sources/s3-shared-pool.test.ts: 60 sets of 10 objects at once, s3rver answering each
 * request 500 ms late): loaded in 14.1 s with 40 in flight, 11.6 s with 48, 10.0 s with 64, 9.1 s with 96;
 * without the bound, 25 of the 60 sets failed. With 8 objects each and the refresh bound cut to 5 s, 19
 * of the 60 sets loaded; served first come, first served instead of by ticket, none did.
 */
export const S3_REQUESTS_IN_FLIGHT = 64;
/** Sockets of the client's pool (the SDK's default is 50), a few more than S3_REQUESTS_IN_FLIGHT. */
export const S3_SOCKETS = 72;

interface Waiter {
  ticket: number;
  start: () => void;
  onAbort: () => void;
}

/**
 * A counting semaphore whose queue serves the lowest ticket first (first come, first served within a
 * ticket). A source's reads in one refresh share a ticket taken when that read began, so the refresh that
 * began first goes first: every refresh has the same deadline (30 s), and when the store cannot serve
 * them all within it, the sets load one after another (the others fail, keep their last good set and are
 * read again) instead of all progressing together and all failing at the deadline.
 */
class Slots {
  private running = 0;
  private readonly queue: Waiter[] = [];
  constructor(readonly limit: number) {}

  acquire(signal: AbortSignal, ticket: number): Promise<() => void> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        ticket,
        start: () => {
          signal.removeEventListener('abort', waiter.onAbort);
          resolve(this.releaser());
        },
        onAbort: () => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(abortReason(signal));
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1].ticket > ticket) at--;
      this.queue.splice(at, 0, waiter);
    });
  }

  /** Requests running and waiting (tests, diagnostics). */
  get state(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.queue.length };
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next.start(); // the slot passes on: running stays the same
      else this.running--;
    };
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : 'aborted');
}

const slotsOf = new WeakMap<S3Client, Slots>();

function slots(client: S3Client): Slots {
  let found = slotsOf.get(client);
  if (!found) slotsOf.set(client, (found = new Slots(S3_REQUESTS_IN_FLIGHT)));
  return found;
}

let tickets = 0;

/** A new ticket for requestSlot: later than every ticket taken before. */
export function requestTicket(): number {
  return ++tickets;
}

/**
 * Waits for one of `client`'s S3_REQUESTS_IN_FLIGHT slots (lowest ticket first, then first come, first
 * served), or rejects with the signal's reason when it aborts first; resolves to the function that gives
 * the slot back (call it once the answer, body included, is read or dropped: the socket is busy until
 * then).
 */
export function requestSlot(client: S3Client, signal: AbortSignal, ticket = requestTicket()): Promise<() => void> {
  return slots(client).acquire(signal, ticket);
}

/** Requests of `client` running and waiting for a slot (tests). */
export function requestSlotState(client: S3Client): { running: number; waiting: number } {
  return slots(client).state;
}
