/**
 * What a policy source is: something that lists documents and fetches one, with a version (an ETag, a
 * file's identity) so that a refresh re-reads only what changed. Core: no platform module here.
 */
import type { ParsedSource } from '../policyset/index.js';

/** One document of a source as its listing shows it. */
export interface SourceEntry {
  /** The key of the document inside its source (object key, file path); unique in the source. */
  name: string;
  /** What problems, logs and /readyz call the document (`s3://bucket/key`, `/etc/amender/x.yaml`). */
  label: string;
  /**
   * The version the listing reports (ETag, file identity); undefined when the listing has none. When set,
   * a fetch must find this very version (else the refresh reads the source again: SnapshotMoved), so it
   * must be comparable with the version a fetch returns.
   */
  version?: string;
  /** Size in bytes when the listing knows it, so an oversized document is refused before it is fetched. */
  size?: number;
  /**
   * The document is written in place (a plain folder's file, not a ConfigMap generation nor an object
   * store's atomic PUT): a read may catch it half-written, or truncated before it is written again, and
   * a cut at a document boundary still parses. A refresher that follows its sources then takes a new
   * version, a new document or a removal only once two looks a settle time apart agree (snapshot.ts).
   */
  inPlace?: boolean;
  /**
   * The listing found this entry but it cannot be read (a folder link that loops back): not fetched; it is
   * reported as a problem of this entry alone, like a document that does not parse, and the others load.
   */
  problem?: string;
  /**
   * With `problem`: the entry is a folder the listing could not read (no permission), named with a
   * trailing `/`. The documents held from an earlier read whose names start with `name` stay as they
   * were (the last good documents below it stay in force) until the folder reads again.
   */
  holdsBelow?: boolean;
}

export interface ListOptions {
  signal: AbortSignal;
  /** A listing with more entries than this fails (the source is misconfigured or hostile). */
  maxEntries: number;
}

export interface FetchOptions {
  signal: AbortSignal;
  /** The version already held: a source answers `not-modified` when the document still has it. */
  ifNoneMatch?: string;
  /** A larger document fails to fetch, with DocumentTooLarge (a problem of that document alone). */
  maxBytes: number;
}

export type FetchResult =
  /** The document still has the version given in `ifNoneMatch` (HTTP 304, a failed R2 precondition). */
  | { status: 'not-modified' }
  /** The document's text and its version. */
  | { status: 'fetched'; version: string; text: string }
  /** Already parsed documents (the bundled set: no YAML parsing at cold start). */
  | { status: 'parsed'; version: string; parsed: ParsedSource }
  /** Deleted between the listing and the fetch. */
  | { status: 'gone' };

export interface PolicySource {
  /** The source as configured (`s3://bucket/prefix`); never holds a credential. */
  readonly uri: string;
  list(options: ListOptions): Promise<SourceEntry[]>;
  fetch(entry: SourceEntry, options: FetchOptions): Promise<FetchResult>;
  /**
   * Called once every document of the last listing was read: throws SnapshotMoved when the source moved
   * on since that listing (a ConfigMap's `..data` link now names another generation), so that the refresh
   * reads it again instead of mixing two generations. Resolves true when the source vouches that the whole
   * listing was one generation (every document came from a snapshot that did not move); false (or no
   * `confirm`) and anything new was read: the refresh lists again and must find the same versions.
   */
  confirm?(options: { signal: AbortSignal }): Promise<boolean>;
  /**
   * Calls `onChange` when the source may have changed (a file-system watch); returns a function that
   * stops watching. Sources without change notifications leave it out and are polled.
   */
  watch?(onChange: () => void): () => void;
}

/** A source that cannot be read right now (unreachable, refused, too large): the last good set stays. */
export class SourceError extends Error {
  override name = 'SourceError';
  constructor(readonly uri: string, message: string, options?: { cause?: unknown }) {
    super(`${uri}: ${message}`, options);
  }
}

/**
 * The source changed while one refresh read it (an object replaced between the listing and its fetch, a
 * ConfigMap swapped mid-read): what was read would mix two generations. The refresh reads the source once
 * more; when it moves again the refresh fails and the last good set stays in force.
 */
export class SnapshotMoved extends SourceError {
  override name = 'SnapshotMoved';
}

/**
 * A document over the size limit (`bytes` as listed, declared or read), thrown by a fetch before its body
 * is read (or, sent without a length, as soon as the bytes read pass the limit: `exact` false, and `bytes`
 * is only a lower bound): a problem of that document alone (snapshot.ts), not of its source.
 */
export class DocumentTooLarge extends SourceError {
  override name = 'DocumentTooLarge';
  readonly exact: boolean;
  constructor(uri: string, readonly label: string, readonly bytes: number, readonly limit: number, { exact = true }: { exact?: boolean } = {}) {
    super(uri, exact ? `${label} is ${bytes} bytes, over the limit of ${limit}` : `${label} is more than ${limit} bytes, the limit`);
    this.exact = exact;
  }
}

/**
 * A read of one object that failed for a reason that may pass, the first time at this version
 * (failing-reads.ts): the refresh fails, the last good set in force, but only once every other object has
 * been read, so that each object failing so in this refresh is counted now and set aside at the next one.
 */
export class ReadMayPass extends SourceError {}

/**
 * A document that cannot be read for a reason of its own that stays until someone fixes it (no read
 * permission, a link that loops), thrown by a fetch: a problem of that document alone, like one that does
 * not parse (its last good version stays in force, the others load), not of its source. A store that is
 * down, or a read that fails for a passing reason, is a SourceError: the refresh fails and is tried again.
 */
export class DocumentUnreadable extends SourceError {
  override name = 'DocumentUnreadable';
  constructor(uri: string, readonly label: string, readonly reason: string) {
    super(uri, `${label} cannot be read: ${reason}`);
  }
}

/** What one load may cost: every load is bounded in count, size and time. */
export interface LoadLimits {
  /** Documents (files, objects) one source may list; more fail the source. */
  maxDocuments: number;
  /** Bytes one file or object may have; a larger one is a problem of that file alone, left unread. */
  maxDocumentBytes: number;
  /** Bytes all documents fetched in one refresh may have together. */
  maxTotalBytes: number;
  /** Time one refresh (every listing and fetch of the set's sources) may take. */
  timeoutMs: number;
  /** Fetches in flight at once, per source. */
  concurrency: number;
}

export const DEFAULT_LOAD_LIMITS: Readonly<LoadLimits> = Object.freeze({
  maxDocuments: 1000,
  maxDocumentBytes: 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
  timeoutMs: 30_000,
  concurrency: 8,
});
