/**
 * `r2://BINDING/prefix` on Cloudflare Workers: lists and reads the prefix through the R2 bucket binding
 * (`env[BINDING]`), fetching conditionally with `onlyIf: { etagDoesNotMatch }` — a failed precondition
 * returns the object's metadata without a body, which is "not modified". Core: Web APIs only.
 */
import { isPolicyDocumentName, folderPrefix } from './names.js';
import { decodeDocumentBytes } from './text.js';
import { FailingReads } from './failing-reads.js';
import { VanishedKeys } from './vanished-keys.js';
import { DocumentTooLarge, SourceError, type PolicySource, type SourceEntry } from './types.js';

/** The part of the Workers `R2Bucket` binding this source uses. */
export interface R2BucketLike {
  list(options?: { prefix?: string; cursor?: string; limit?: number }): Promise<{
    objects: { key: string; etag: string; size: number }[];
    truncated: boolean;
    cursor?: string;
  }>;
  get(key: string, options?: { onlyIf?: { etagDoesNotMatch?: string } }): Promise<R2ObjectLike | null>;
}

/** An R2 object: with its body (`arrayBuffer()`, `text()`) when the body came, without when a precondition failed. */
export interface R2ObjectLike {
  key: string;
  etag: string;
  size: number;
  text?: () => Promise<string>;
  arrayBuffer?: () => Promise<ArrayBuffer>;
}

function isBucket(value: unknown): value is R2BucketLike {
  const v = value as Partial<R2BucketLike> | null;
  return typeof v === 'object' && v !== null && typeof v.list === 'function' && typeof v.get === 'function';
}

/**
 * R2 error codes of a failure that passes (the Workers API puts the code at the end of the message:
 * `get: We encountered an internal error. Please try again. (10001)`): an internal error, the service
 * unavailable, too many requests. Any other code names a refusal that lasts until someone fixes it.
 */
const PASSING_R2_CODES = new Set([10001, 10043, 10058]);

function errorText(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return (typeof message === 'string' && message !== '' ? message : String(err)).split('\n')[0];
}

/** The R2 error code of an error the binding threw (its `code`, or the number at the end of its message). */
function r2ErrorCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return code;
  const found = /\((\d{5,6})\)$/.exec(errorText(err).trimEnd());
  return found ? Number(found[1]) : undefined;
}

export interface R2SourceOptions {
  uri: string;
  bucket: unknown;
  prefix: string;
}

export function r2Source({ uri, bucket, prefix }: R2SourceOptions): PolicySource {
  if (!isBucket(bucket)) throw new SourceError(uri, 'the binding is not an R2 bucket (declare it under r2_buckets in wrangler.toml)');
  const root = folderPrefix(prefix);
  const label = (key: string) => `r2://${uri.slice('r2://'.length).split('/')[0]}/${key}`;
  // Keys a read found gone (get() null), as the S3 source keeps them.
  const vanished = new VanishedKeys();
  // Objects whose get() (or its body's read) threw: a problem of that object when the error names a
  // lasting refusal, or when a passing one (no code, or a passing code) comes again at the same ETag
  // (failing-reads.ts); the first passing one fails the refresh, as a 5xx fails an S3 source.
  const reads = new FailingReads();
  const refused = (entry: SourceEntry, err: unknown): SourceError => {
    const code = r2ErrorCode(err);
    return reads.failed(uri, entry, { reason: errorText(err), lasting: code !== undefined && !PASSING_R2_CODES.has(code), cause: err });
  };
  return {
    uri,
    async list({ maxEntries }) {
      const entries: SourceEntry[] = [];
      reads.listing();
      let cursor: string | undefined;
      // Each page holds at most 1000 keys; stop as soon as the limit is passed instead of reading on.
      for (let page = 0; ; page++) {
        const listed = await bucket.list({ prefix: root, limit: 1000, ...(cursor ? { cursor } : {}) });
        // A KV namespace bound under the name has list() and get() too; its listing holds `keys`, not `objects`.
        if (!Array.isArray((listed as { objects?: unknown } | null)?.objects)) {
          throw new SourceError(uri, 'the binding\'s listing is no R2 listing: is it an R2 bucket (r2_buckets in wrangler.toml), not a KV namespace or another binding?');
        }
        for (const o of listed.objects) {
          if (!isPolicyDocumentName(o.key.slice(root.length))) continue;
          entries.push({ name: o.key, label: label(o.key), version: o.etag, size: o.size });
        }
        if (entries.length > maxEntries) throw new SourceError(uri, `lists more than ${maxEntries} documents`);
        if (!listed.truncated) {
          const names = new Set(entries.map((e) => e.name));
          vanished.listed(names);
          reads.listed(entries);
          return entries;
        }
        if (!listed.cursor || page > maxEntries) throw new SourceError(uri, 'the listing did not end (no cursor on a truncated page)');
        cursor = listed.cursor;
      }
    },
    async fetch(entry, { ifNoneMatch, maxBytes }) {
      let object;
      try {
        object = await bucket.get(entry.name, ifNoneMatch ? { onlyIf: { etagDoesNotMatch: ifNoneMatch } } : undefined);
      } catch (err) {
        throw refused(entry, err);
      }
      if (object === null) {
        reads.answered(entry.name);
        return vanished.vanished(uri, entry);
      }
      vanished.found(entry.name);
      if (typeof object.text !== 'function') {
        if (ifNoneMatch !== undefined) {
          reads.answered(entry.name);
          return { status: 'not-modified' };
        }
        // Asked for without a condition, the object came without its body: a read that failed and may pass.
        throw reads.failed(uri, entry, { reason: 'the bucket returned the object without its body (get() without a condition)', lasting: false, cause: undefined });
      }
      if (object.size > maxBytes) throw new DocumentTooLarge(uri, entry.label, object.size, maxBytes);
      // The bytes, decoded as the folder and S3 sources decode them (a UTF-16 byte-order mark: UTF-16).
      let bytes: ArrayBuffer | string;
      try {
        bytes = typeof object.arrayBuffer === 'function' ? await object.arrayBuffer() : await object.text();
      } catch (err) {
        throw refused(entry, err); // its body, as its get(): a stream cut, or an object that cannot be read
      }
      reads.answered(entry.name);
      const text = typeof bytes === 'string' ? bytes : decodeDocumentBytes(new Uint8Array(bytes));
      return { status: 'fetched', version: object.etag, text };
    },
    async confirm() {
      reads.confirm(uri, label(root));
      return false; // R2 vouches for no generation: the refresh lists again when it read anything new
    },
  };
}
