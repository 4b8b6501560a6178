/**
 * `s3://bucket/prefix` through `@aws-sdk/client-s3`: lists the prefix page by page (ListObjectsV2), reads
 * each `.yaml`/`.yml`/`.json` object with GetObject, conditionally (`If-None-Match` with the ETag held), so
 * an unchanged object answers 304 without a body. Keys are listed URL-encoded (see listedKey). Every
 * request waits for a slot of the shared client first (see requestSlot). Any S3-compatible store works with
 * an endpoint override (see s3-client.ts). The AWS SDK is loaded on the first listing (see s3-client.ts).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { folderPrefix, isPolicyDocumentName } from '../names.js';
import { decodeDocumentBytes } from '../text.js';
import { FailingReads } from '../failing-reads.js';
import { VanishedKeys } from '../vanished-keys.js';
import { DocumentTooLarge, DocumentUnreadable, SourceError, type FetchResult, type PolicySource, type SourceEntry } from '../types.js';
import { loadS3Sdk, type S3Sdk } from './s3-client.js';
import { requestSlot, requestTicket } from './s3-request-slots.js';

export interface S3SourceOptions {
  uri: string;
  /** The client, or how to make it on first use (the SDK loads then). */
  client: S3Client | (() => Promise<S3Client>);
  bucket: string;
  prefix: string;
  /** Keys per listing page (S3's maximum, 1000, unless told). */
  pageSize?: number;
}

function httpStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

/**
 * Whether a GetObject answer is a refusal that lasts until someone changes the object or the role: a 4xx
 * (403 denied, 400 an SSE-C object read without its key), not 408 (request timeout) or 429 (slow down).
 */
function isRefusal(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** `the configured 1000 ms requestTimeout`, `timed out after 1000 ms of inactivity`: the SDK's timeouts. */
const SDK_TIMEOUT = /(\d+) ms/;

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; Code?: string };
  if (e?.name === 'TimeoutError' && typeof e.message === 'string') {
    const ms = SDK_TIMEOUT.exec(e.message)?.[1];
    if (ms !== undefined) return `the store did not answer within ${ms} ms (${/inactivity/.test(e.message) ? 'the connection went quiet' : 'no answer'})`;
  }
  const status = httpStatus(err);
  const text = (e?.message || e?.Code || e?.name || String(err)).split('\n')[0];
  return status !== undefined ? `${text} (HTTP ${status})` : text;
}

/**
 * A body whose read failed halfway: Node says only `aborted` (code ECONNRESET) when the connection closed
 * or was reset before the Content-Length promised was sent.
 */
function describeBodyFailure(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown } | null;
  if (e?.message !== 'aborted') return describe(err);
  return `the body stopped before its end (the connection was closed: aborted${typeof e.code === 'string' ? `, ${e.code}` : ''})`;
}

/**
 * An ETag in one form, quoted (`"abc"`, as S3 writes it everywhere and If-None-Match takes it): some
 * compatible stores list ETags bare (`abc`: NetApp ONTAP) while their GetObject's ETag header is quoted.
 * Compared as written, every object would look replaced between its listing and its read, and the source
 * would never load. A weak marker (`W/`), which no S3 store sends, is dropped the same way.
 */
function canonicalEtag(etag: string): string {
  const bare = etag.replace(/^W\//, '');
  return bare.length >= 2 && bare.startsWith('"') && bare.endsWith('"') ? bare : `"${bare}"`;
}

/** Whether a ListObjectsV2 answer is one: S3 and every compatible store name the bucket and say whether it is cut. */
function isListing(listed: { Name?: string; IsTruncated?: boolean; KeyCount?: number }): boolean {
  return listed.Name !== undefined || listed.IsTruncated !== undefined || listed.KeyCount !== undefined;
}

/**
 * A listed key as stored. Listings are asked for with EncodingType=url: XML 1.0 cannot carry some
 * characters a key may hold (a CR comes back as LF, other control characters not at all), and a key read
 * back changed answers 404, so the source would never load. S3 then encodes keys as a form does (a space
 * as `+`, a `+` as `%2B`). A store that ignores the parameter (s3rver, some compatible stores) says so by
 * leaving out `EncodingType` from its answer: its keys are taken as written.
 */
function listedKey(key: string, encoded: boolean): string {
  if (!encoded) return key;
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key; // not valid percent-encoding: as written
  }
}

/**
 * The body's bytes, or undefined as soon as they pass `maxBytes` (the stream is then destroyed): a body
 * sent without Content-Length is otherwise read whole into memory, whatever its size.
 */
async function readAtMost(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      (body as { destroy?: () => void }).destroy?.();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

export function s3Source({ uri, client, bucket, prefix, pageSize = 1000 }: S3SourceOptions): PolicySource {
  const root = folderPrefix(prefix);
  const fail = (message: string, cause: unknown) => new SourceError(uri, message, { cause });
  let ready: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;
  // Keys of the last listing that hold a line feed, listed as written (the store ignored EncodingType=url):
  // the XML of the listing turns a CR (or CR LF) into LF, so the key may not be the stored one.
  const doubtful = new Set<string>();
  // Objects whose GetObject or body read failed (failing-reads.ts): a refusal (a 4xx: 403 its ACL or a KMS
  // key the role may not use, 400 an SSE-C object read without its key) a problem of that object at once,
  // as a folder's unreadable file is; a 5xx, a timeout or a body cut short fails the refresh the first
  // time, and is that object's problem when it comes again at the same ETag. The others load, unless every
  // object listed failed so (confirm): then the source cannot be read.
  const reads = new FailingReads();
  // Keys a read found gone (404): a stale bucket index entry, as Ceph RGW can keep, read twice is a
  // problem of that key alone (vanished-keys.ts).
  const vanished = new VanishedKeys();
  // The queue position of this source's reads (see requestSlot): one ticket per refresh, taken when its
  // first listing starts. A refresh's listings (the first, a confirming one, a second try) get one signal.
  let ticket = { signal: undefined as AbortSignal | undefined, number: 0 };
  const connect = () =>
    (ready ??= Promise.all([loadS3Sdk(), typeof client === 'function' ? client() : client]).then(
      ([sdk, made]) => ({ sdk, client: made }),
      (err: unknown) => {
        ready = undefined; // try again on the next refresh
        throw fail(`cannot make the S3 client: ${describe(err)}`, err);
      },
    ));
  return {
    uri,
    async list({ signal, maxEntries }) {
      const { sdk, client } = await connect();
      const { ListObjectsV2Command } = sdk;
      const entries: SourceEntry[] = [];
      doubtful.clear();
      reads.listing();
      if (ticket.signal !== signal) ticket = { signal, number: requestTicket() };
      let token: string | undefined;
      // A store (or proxy) that hands out a token again would have the listing go round for ever.
      const tokens = new Set<string>();
      for (let page = 0; ; page++) {
        let listed;
        const release = await requestSlot(client, signal, ticket.number);
        try {
          listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: root, MaxKeys: pageSize, ContinuationToken: token, EncodingType: 'url' }), { abortSignal: signal });
        } catch (err) {
          throw fail(`cannot list s3://${bucket}/${root}: ${describe(err)}`, err);
        } finally {
          release();
        }
        // A 200 whose body is no listing (a proxy's login page, a wrong endpoint) parses as an empty one:
        // taken, it would remove every policy of the set.
        if (!isListing(listed)) throw new SourceError(uri, `cannot list s3://${bucket}/${root}: the store's answer is not an S3 listing (is AMENDER_S3_ENDPOINT an S3 endpoint?)`);
        const encoded = listed.EncodingType === 'url';
        for (const o of listed.Contents ?? []) {
          if (!o.Key) continue;
          const key = listedKey(o.Key, encoded);
          if (!key.startsWith(root) || !isPolicyDocumentName(key.slice(root.length))) continue;
          if (!encoded && key.includes('\n')) doubtful.add(key);
          entries.push({ name: key, label: `s3://${bucket}/${key}`, ...(o.ETag ? { version: canonicalEtag(o.ETag) } : {}), ...(o.Size !== undefined ? { size: o.Size } : {}) });
        }
        if (entries.length > maxEntries) throw new SourceError(uri, `lists more than ${maxEntries} documents`);
        if (!listed.IsTruncated) {
          vanished.listed(new Set(entries.map((e) => e.name)));
          reads.listed(entries);
          return entries;
        }
        if (!listed.NextContinuationToken || page > maxEntries) throw new SourceError(uri, 'the listing did not end (truncated page without a continuation token)');
        token = listed.NextContinuationToken;
        if (tokens.has(token)) throw new SourceError(uri, `the listing did not end (the store gave continuation token ${JSON.stringify(token.slice(0, 64))} again after ${page + 1} pages)`);
        tokens.add(token);
      }
    },
    async fetch(entry, { signal, ifNoneMatch, maxBytes }) {
      const { sdk, client } = await connect();
      // The slot is held until the body is read or dropped: its socket is busy until then.
      const release = await requestSlot(client, signal, ticket.number);
      try {
        return await read(sdk, client, entry, signal, ifNoneMatch, maxBytes);
      } finally {
        release();
      }
    },
    async confirm() {
      reads.confirm(uri, `s3://${bucket}/${root}`);
      return false; // S3 vouches for no generation: the refresh lists again when it read anything new
    },
  };

  async function read(sdk: S3Sdk, client: S3Client, entry: SourceEntry, signal: AbortSignal, ifNoneMatch: string | undefined, maxBytes: number): Promise<FetchResult> {
    const { GetObjectCommand } = sdk;
    let response;
    try {
      response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: entry.name, IfNoneMatch: ifNoneMatch }), { abortSignal: signal });
    } catch (err) {
      const status = httpStatus(err);
      if (status === 304) {
        vanished.found(entry.name);
        reads.answered(entry.name);
        return { status: 'not-modified' };
      }
      if (status === 404 && doubtful.has(entry.name)) {
        // Not "gone" (the source would be read again and fail for ever, the others with it): a problem of
        // this object alone, read again on every refresh.
        throw new DocumentUnreadable(uri, entry.label, 'the store lists this key with a line break but has no object of that key: its key holds a carriage return, which an S3 listing in XML cannot carry unless the store URL-encodes keys (EncodingType=url, which this store ignores); rename the object');
      }
      if (status === 404) {
        reads.answered(entry.name);
        return vanished.vanished(uri, entry);
      }
      // Not the whole source for good (the set would never load, or never change again, for one object
      // uploaded with a key or an owner the role cannot read, or one the store keeps failing on).
      throw failed(entry, signal, err, {
        lasting: isRefusal(status),
        ...(status === 403 ? { hint: " (the object's ACL or its KMS key?)", sourceHint: ' (may the role s3:GetObject there?)' } : {}),
      });
    }
    if (response.ContentLength !== undefined && response.ContentLength > maxBytes) {
      // Not read: the connection is dropped instead of draining a body over the limit into memory.
      (response.Body as { destroy?: () => void } | undefined)?.destroy?.();
      throw new DocumentTooLarge(uri, entry.label, response.ContentLength, maxBytes);
    }
    // No body, or no ETag below: a fault of this object's answer, taken as a read that failed and may pass
    // (the refresh fails; the same key at the same listed ETag again is that object's problem, see reads).
    if (!response.Body) throw failed(entry, signal, undefined, { lasting: false, reason: 'the store answered GetObject without a body' });
    let bytes: Buffer | undefined;
    try {
      bytes = await readAtMost(response.Body as AsyncIterable<Uint8Array>, maxBytes);
    } catch (err) {
      throw failed(entry, signal, err, { lasting: false, reason: describeBodyFailure(err) }); // may pass
    }
    // Sent without a length (chunked) and longer than the limit: dropped at the limit, like a sized one.
    if (bytes === undefined) throw new DocumentTooLarge(uri, entry.label, maxBytes + 1, maxBytes, { exact: false });
    const text = decodeDocumentBytes(bytes);
    const version = response.ETag ? canonicalEtag(response.ETag) : entry.version;
    if (!version) throw failed(entry, signal, undefined, { lasting: false, reason: "the store gave no ETag, in its listing nor in GetObject's answer, so the version read cannot be told" });
    vanished.found(entry.name);
    reads.answered(entry.name);
    return { status: 'fetched', version, text };
  }

  /** A read of `entry` that failed: the refresh's failure, or that object's problem (see reads). */
  function failed(entry: SourceEntry, signal: AbortSignal, err: unknown, { reason = describe(err), ...how }: { lasting: boolean; reason?: string; hint?: string; sourceHint?: string }): SourceError {
    // The refresh gave up (its time bound): not the object's failure.
    if (signal?.aborted) return fail(`cannot read ${entry.label}: ${reason}`, err);
    return reads.failed(uri, entry, { reason, cause: err, ...how });
  }
}
