import type { SourceResolvers } from '../sources/index.js';

/**
 * What a CLI command may touch. Commands take this instead of `process` so tests run them in-process
 * and the same code serves `bin/amender` and the test suite.
 */
export interface CliIO {
  /**
   * The whole of standard input (the real one fails with InputTooLargeError past MAX_INPUT_BYTES). Read
   * as kubectl reads a file (UTF-8, a byte-order mark dropped; UTF-16 when it starts with its mark), or,
   * with `body`, as POST /mutate reads a request body: UTF-8 only.
   */
  readStdin(options?: { body?: boolean }): Promise<string>;
  /**
   * A file's text (paths relative to `cwd`; the real one fails with InputTooLargeError past MAX_INPUT_BYTES).
   * `found`: the path was found in a folder rather than named on the command line, and is read only when
   * it is a regular file (NotRegularFileError otherwise, without blocking): a FIFO named `x.yaml` in a
   * resource folder would block the read until a writer came. A path named by the user (`--resource
   * <(...)`, a FIFO) is read whatever it is, as `kubectl apply -f` reads it. `body`: see readStdin.
   */
  readFile(path: string, options?: { found?: boolean; body?: boolean }): Promise<string>;
  /**
   * The names of the entries of a folder, or undefined when `path` is not a folder (a file, or nothing).
   * Optional: only commands that walk folders (`--policies DIR`, `amender test DIR`) need it.
   */
  listDir?(path: string): Promise<string[] | undefined>;
  /**
   * The folder's path with every link resolved, to tell a link back to a folder being walked (a loop)
   * from a folder of its own. Optional: without it (in-memory file systems have no links) none is a loop.
   */
  realPath?(path: string): Promise<string>;
  /**
   * How `--policies` URIs are read: the server's sources (`file://`, paths, `s3://`, `bundled`). Without
   * it, files and folders are read through `readFile`/`listDir` (the in-memory file systems of tests).
   */
  policyResolvers?(): SourceResolvers;
  /** Writes a file (`--output-file`); optional: only commands that write reports need it. */
  writeFile?(path: string, text: string): Promise<void>;
  /** Makes a folder and the folders above it (`--output DIR`); optional, as writeFile. */
  makeDir?(path: string): Promise<void>;
  /** Write to standard output (no newline added). */
  out(text: string): void;
  /** Write to standard error (no newline added). */
  err(text: string): void;
}

/** A CLI command: arguments after the command name in, exit code out. */
export type CliCommand = (argv: string[], io: CliIO) => Promise<number>;
