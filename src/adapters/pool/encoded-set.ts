/**
 * A set version's documents serialized into shared memory, for the review workers. Posting the documents
 * themselves structured-cloned them on the main thread once per worker: with seven workers and a set of
 * large CRDs, seconds in which no probe or review was answered. The shared buffer crosses by reference;
 * each worker decodes it on its own thread.
 *
 * Two ways to make it, one layout:
 * - encodeInputs: at once, when a version is sent (pool.ts: for the workers after the first, which gets a
 *   clone, so that at a cold start node:v8, about 2 ms to load on either thread, stays off the path to the
 *   first reply);
 * - encodeInputsInSlices: a run of documents at a time, the event loop turning between runs, before a
 *   large set is applied (RefresherOptions.beforeApply). The first serialization of freshly parsed
 *   documents is the slow one (40 CRDs of 590 KB: 600-800 ms at once, then ~100 ms for the same data), and
 *   done at once it held the main thread, probes and reviews unanswered, at the end of the load.
 *
 * Layout: a Uint32 count of pieces, their byte lengths (Uint32 each), then the pieces. Piece 0 is the
 * sources with `documents` replaced by how many pieces follow for that source; each following piece is
 * an array of consecutive documents of its source.
 */
import type { ParsedSource, SourceDocument } from '../../policyset/index.js';

type V8 = typeof import('node:v8');
const v8 = (): V8 => process.getBuiltinModule('node:v8') as V8;

/** The sources with the number of document pieces in place of their documents. */
type Shell = (Omit<ParsedSource, 'documents'> & { documents: number })[];

/** Time one run of the sliced encoding may take before the event loop turns. */
const SLICE_MS = 8;
/** Most documents serialized in one call: a run grows while its documents serialize fast. */
const MAX_RUN = 4096;

export function encodeInputs(inputs: readonly ParsedSource[]): SharedArrayBuffer {
  const pieces = inputs.map((source) => v8().serialize(source.documents));
  return drained(joining(v8().serialize(shellOf(inputs, () => 1)), pieces));
}

/**
 * The same encoding, made a run of documents at a time with `pause()` between runs once SLICE_MS has
 * passed; a run doubles while it serializes in under a millisecond and halves past a quarter of the
 * slice, so tiny documents are not serialized one call each, and a large one is one call of its own.
 * Rejects with `pause()`'s rejection (an aborted refresh).
 */
export async function encodeInputsInSlices(inputs: readonly ParsedSource[], pause: () => Promise<void>): Promise<SharedArrayBuffer> {
  const serializer = v8();
  const pieces: Uint8Array[] = [];
  const counts: number[] = [];
  let run = 1;
  let sliceStart = performance.now();
  for (const source of inputs) {
    const docs = source.documents;
    let count = 0;
    for (let at = 0; at < docs.length; ) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await pause();
        sliceStart = performance.now();
      }
      const start = performance.now();
      const part: SourceDocument[] = docs.slice(at, at + run);
      pieces.push(serializer.serialize(part));
      count++;
      at += part.length;
      const took = performance.now() - start;
      if (took < 1) run = Math.min(run * 2, MAX_RUN);
      else if (took > SLICE_MS / 4) run = Math.max(1, run >> 1);
    }
    counts.push(count);
  }
  // Copied into shared memory a piece at a time too: for a set of 24 MB, its 15 MB copied at once (the
  // buffer's pages first touched then) held the main thread 20-160 ms on a busy host.
  const join = joining(serializer.serialize(shellOf(inputs, (i) => counts[i])), pieces);
  for (let step = join.next(); ; step = join.next()) {
    if (step.done) return step.value;
    if (performance.now() - sliceStart > SLICE_MS) {
      await pause();
      sliceStart = performance.now();
    }
  }
}

export function decodeInputs(encoded: SharedArrayBuffer): readonly ParsedSource[] {
  const serializer = v8();
  const count = new Uint32Array(encoded, 0, 1)[0];
  const lengths = new Uint32Array(encoded, 4, count);
  let offset = 4 + 4 * count;
  let next = 0;
  const piece = (): unknown => {
    const bytes = new Uint8Array(encoded, offset, lengths[next++]);
    offset += bytes.length;
    return serializer.deserialize(bytes);
  };
  const shell = piece() as Shell;
  return shell.map((source) => {
    const documents: SourceDocument[] = [];
    for (let i = 0; i < source.documents; i++) for (const doc of piece() as SourceDocument[]) documents.push(doc);
    return { ...source, documents };
  });
}

function shellOf(inputs: readonly ParsedSource[], pieces: (index: number) => number): Shell {
  return inputs.map((source, i) => ({ ...source, documents: pieces(i) }));
}

/** The layout's buffer, filled a piece at a time: it yields after each piece copied. */
function* joining(shell: Uint8Array, pieces: readonly Uint8Array[]): Generator<void, SharedArrayBuffer> {
  const all = [shell, ...pieces];
  const header = 4 + 4 * all.length;
  const shared = new SharedArrayBuffer(header + all.reduce((n, p) => n + p.length, 0));
  const lengths = new Uint32Array(shared, 0, 1 + all.length);
  lengths[0] = all.length;
  const bytes = new Uint8Array(shared);
  let offset = header;
  for (let i = 0; i < all.length; i++) {
    lengths[i + 1] = all[i].length;
    bytes.set(all[i], offset);
    offset += all[i].length;
    yield;
  }
  return shared;
}

function drained<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
