/**
 * Listed keys a read found without an object, for the object-store sources (S3's 404, R2's null). The
 * first time such a read is taken as a delete between the listing and the read (the source is read
 * again); listed again at the same version and gone again, the listing holds an entry the store has no
 * object for (a stale bucket index entry, or a store not yet consistent): a problem of that key alone,
 * where "changed while being read" would fail the source on every refresh, and a set that never loaded
 * would never load.
 */
import { DocumentUnreadable, type SourceEntry } from './types.js';

export class VanishedKeys {
  /** Key → the listed version a read found gone. */
  private readonly gone = new Map<string, string | undefined>();

  /** The read of `entry` found no object: 'gone' the first time, a DocumentUnreadable at the same version again. */
  vanished(uri: string, entry: SourceEntry): { status: 'gone' } {
    if (this.gone.has(entry.name) && this.gone.get(entry.name) === entry.version) {
      throw new DocumentUnreadable(uri, entry.label, 'the store lists this key but has no object of that key, at two reads in a row (a stale listing entry?)');
    }
    this.gone.set(entry.name, entry.version);
    return { status: 'gone' };
  }

  /** A read of `name` found its object (or the store vouched for it). */
  found(name: string): void {
    this.gone.delete(name);
  }

  /** A whole listing: keys it no longer holds were deleted for real. */
  listed(names: ReadonlySet<string>): void {
    for (const key of this.gone.keys()) if (!names.has(key)) this.gone.delete(key);
  }
}
