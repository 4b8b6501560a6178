/**
 * The bytes of documents one refresh of a set may hold (LoadLimits.maxTotalBytes), counted as its
 * sources are read rather than once every body is in memory: a prefix of 1000 objects of 1 MiB each (a
 * typo naming a folder of other JSON) used to be fetched and decoded whole, a gigabyte and more of text,
 * before the set was refused for its size, and the fetched documents stayed held by the source's cache.
 * Each read of a source takes a share: documents held as they were, the listed size of a document before
 * its body is requested, then what it turned out to hold; past the limit the read fails (a SourceError,
 * so the last good set stays in force). A read that fails gives its share back (a source read again
 * after it moved counts once).
 */
import { SourceError } from './types.js';

export class SetBytes {
  private held = 0;

  /** `name`: the set's, for the error. */
  constructor(readonly limit: number, private readonly name: string) {}

  /** A share for one read of the source `uri`. */
  share(uri: string): BytesShare {
    let mine = 0;
    return {
      take: (bytes) => {
        mine += bytes;
        this.held += bytes;
        if (bytes > 0 && this.held > this.limit) {
          throw new SourceError(`policy set ${this.name}`, `its documents hold more than ${this.limit} bytes, the limit; not read further (reading ${uri})`);
        }
      },
      giveBack: () => {
        this.held -= mine;
        mine = 0;
      },
    };
  }
}

export interface BytesShare {
  /** Counts `bytes` more (less when negative); throws SourceError when that passes the limit. */
  take(bytes: number): void;
  /** Gives back all this share took (its read failed). */
  giveBack(): void;
}
