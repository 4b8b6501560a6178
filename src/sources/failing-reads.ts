/**
 * Listed objects whose read failed, for the object-store sources (S3's GetObject or its body, R2's get()
 * or its body). One unreadable object must not take the others down: a failure of a kind that lasts (the
 * source says which: an S3 4xx, an R2 error code naming a refusal) is a problem of that object at once; a
 * failure that may pass (a 5xx, a connection cut, a timeout, an answer without its body or its ETag)
 * fails the refresh the first time (the last good set in force), and the same key at the same listed
 * version failing again at its next read is a problem of that object, read again every refresh. Either
 * way its last good version stays in force (snapshot.ts's unread-entry path) and the others load, unless
 * every object of the listing failed so, which says the store can be read no more: then confirm() fails
 * the source.
 */
import { DocumentUnreadable, ReadMayPass, SourceError, type SourceEntry } from './types.js';

export interface ReadFailure {
  /** The store's error, one line. */
  reason: string;
  /** A kind of failure that does not pass on its own (a refusal): the object's problem at once. */
  lasting: boolean;
  cause: unknown;
  /** Appended to the object's problem text (` (the object's ACL or its KMS key?)`). */
  hint?: string;
  /** Appended to the source's error when every object listed failed and this one is named. */
  sourceHint?: string;
}

export class FailingReads {
  /** Key → the listed version whose read failed with a failure that may pass. */
  private readonly failing = new Map<string, string | undefined>();
  /** Objects of the last listing taken as problems of their own. */
  private readonly unread: { label: string; reason: string; sourceHint: string }[] = [];
  private listedCount = 0;

  /** A listing starts: the objects it lists are yet to be read. */
  listing(): void {
    this.unread.length = 0;
  }

  /** The whole listing: keys it no longer holds are forgotten. */
  listed(entries: readonly SourceEntry[]): void {
    const names = new Set(entries.map((e) => e.name));
    for (const key of this.failing.keys()) if (!names.has(key)) this.failing.delete(key);
    this.listedCount = entries.length;
  }

  /** A read of `name` was answered (its body read whole, not modified, or no object). */
  answered(name: string): void {
    this.failing.delete(name);
  }

  /** The read of `entry` failed: the error to throw, the refresh's (a first failure that may pass) or the object's. */
  failed(uri: string, entry: SourceEntry, { reason, lasting, cause, hint = '', sourceHint = '' }: ReadFailure): SourceError {
    if (!lasting && !(this.failing.has(entry.name) && this.failing.get(entry.name) === entry.version)) {
      this.failing.set(entry.name, entry.version);
      return new ReadMayPass(uri, `cannot read ${entry.label}: ${reason}`, { cause });
    }
    this.unread.push({ label: entry.label, reason, sourceHint });
    return new DocumentUnreadable(uri, entry.label, `${reason}${lasting ? '' : ', at two reads in a row'}, while the listing could be read${hint}`);
  }

  /** Throws when no object of the last listing could be read: `where` names the listed prefix. */
  confirm(uri: string, where: string): void {
    if (this.unread.length > 0 && this.unread.length === this.listedCount) {
      const [first] = this.unread;
      throw new SourceError(uri, `cannot read ${first.label}: ${first.reason}, nor any other object of ${where}${first.sourceHint}`);
    }
  }
}
