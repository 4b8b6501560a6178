/**
 * The real CliIO: the process's stdin/stdout/stderr and the file system, paths relative to `cwd`; policy
 * sources read as the Node server reads them (folders, S3 with the AWS variables of the environment, the
 * bundled set).
 */
import { constants, type Stats } from 'node:fs';
import { mkdir, open, readdir, realpath, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LIMITS } from '../server/index.js';
import { directorySource, nodeSourceResolvers } from '../sources/node/index.js';
import { CliInputError, describeFsError, InputTooLargeError, NotRegularFileError } from './errors.js';
import type { CliIO } from './io.js';

/**
 * The most the CLI reads from one file or from standard input: the server's default request body limit
 * (AMENDER_MAX_BODY_BYTES, 8 MiB), the largest review `amender review` must accept, and far more than a
 * resource, values file or test file needs (the API server takes 3 MiB).
 */
export const MAX_INPUT_BYTES = DEFAULT_LIMITS.maxBodyBytes;

/** Exit code when standard output's reader has gone (EPIPE): what a shell reports for a command killed by SIGPIPE (128 + 13). */
export const EXIT_BROKEN_PIPE = 141;

/** `bundled` for the CLI: the repository's `policies/` (dist/cli/amender.js and src/cli/*.ts are two levels below it). */
const BUNDLED_POLICIES_DIR = fileURLToPath(new URL('../../policies/', import.meta.url));

/** Strict, and drops a byte-order mark. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

const STRICT_UTF16LE = new TextDecoder('utf-16le', { fatal: true });
const STRICT_UTF16BE = new TextDecoder('utf-16be', { fatal: true });

/**
 * Text as the server reads a request body (`body`): UTF-8 or an error (never U+FFFD in place of bad
 * bytes), a byte-order mark dropped, so that `amender review` answers what POST /mutate would. Otherwise
 * (a resource, a test, a values file) as kubectl and the policy sources read a file: the same, and UTF-16
 * when the bytes start with its byte-order mark (Windows PowerShell 5 writes a redirect so).
 */
function inputText(bytes: Uint8Array, { body = false }: { body?: boolean } = {}): string {
  if (!body && bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    try {
      return (bytes[0] === 0xff ? STRICT_UTF16LE : STRICT_UTF16BE).decode(bytes.subarray(2));
    } catch {
      throw new Error('not valid UTF-16 (it starts with a UTF-16 byte-order mark)');
    }
  }
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new Error('not valid UTF-8');
  }
}

function kindOf(info: Stats): string {
  return info.isFIFO() ? 'a FIFO (named pipe)' : info.isSocket() ? 'a socket' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : 'a folder';
}

/**
 * At most `limit` bytes of a file, device or FIFO: a regular file's size is checked first, anything else as
 * it is read. `regularOnly`: anything but a regular file is refused, and opened without blocking (the open
 * of a FIFO waits for a writer; O_NONBLOCK makes it return at once; a socket cannot be opened at all).
 */
async function readBounded(path: string, limit: number, regularOnly = false): Promise<Buffer> {
  let file;
  try {
    file = await open(path, regularOnly ? constants.O_RDONLY | constants.O_NONBLOCK : 'r');
  } catch (err) {
    if (regularOnly && (err as NodeJS.ErrnoException).code === 'ENXIO') throw new NotRegularFileError('a socket');
    throw err;
  }
  try {
    const info = await file.stat();
    if (regularOnly && !info.isFile()) throw new NotRegularFileError(kindOf(info));
    if (info.isFile() && info.size > limit) throw new InputTooLargeError(limit);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // One byte past the limit tells a file of exactly `limit` bytes from a longer one.
      const buffer = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - total));
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > limit) throw new InputTooLargeError(limit);
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await file.close();
  }
}

async function readStdinBounded(limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  // Leaving the loop destroys the stream: nothing more is read.
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > limit) throw new InputTooLargeError(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

/** The real CliIO, and `finish`: the exit code once standard output has taken everything (1 if it could not). */
export interface NodeCliIO extends CliIO {
  finish(code: number): Promise<number>;
}

/** Standard output failed to take a write: the process's, shared by every CliIO of it. */
let outFailed = false;
let stdioWatched = false;

function failOut(message: string): void {
  if (outFailed) return;
  outFailed = true;
  process.stderr.write(`amender: cannot write standard output: ${message}\n`);
}

/** Watches the process's standard streams, once however many CliIOs are made (a test makes many). */
function watchStdio(): void {
  if (stdioWatched) return;
  stdioWatched = true;
  // The reader of standard output (`| head -1`) has gone: stop at once and quietly, as SIGPIPE would.
  const onError = (stream: NodeJS.WriteStream) => (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT_BROKEN_PIPE);
    if (stream === process.stdout) failOut(err.message);
  };
  process.stdout.on('error', onError(process.stdout));
  process.stderr.on('error', onError(process.stderr));
}

export function nodeCliIO(cwd: string = process.cwd()): NodeCliIO {
  watchStdio();
  return {
    readStdin: async (options) => inputText(await readStdinBounded(MAX_INPUT_BYTES), options),
    readFile: async (path, options) => inputText(await readBounded(resolve(cwd, path), MAX_INPUT_BYTES, options?.found === true), options),
    writeFile: (path, text) => writeFile(resolve(cwd, path), text, 'utf8'),
    makeDir: async (path) => void (await mkdir(resolve(cwd, path), { recursive: true })),
    async listDir(path) {
      const full = resolve(cwd, path);
      const info = await stat(full).catch(() => undefined);
      if (!info?.isDirectory()) return undefined;
      try {
        return (await readdir(full)).sort();
      } catch (err) {
        // A folder that cannot be listed (no permission) is the user's to fix, never skipped: a test in it would go unrun.
        throw new CliInputError(`cannot read ${describeFsError(path, err)}`, { cause: err });
      }
    },
    realPath: (path) => realpath(resolve(cwd, path)),
    policyResolvers() {
      const resolvers = nodeSourceResolvers({ env: process.env, bundledFolder: BUNDLED_POLICIES_DIR });
      if (resolve(cwd) === process.cwd()) return resolvers;
      // Relative paths are taken from `cwd` (and name what is read from them by their full path).
      return { ...resolvers, directory: (u) => directorySource({ uri: u.uri, path: isAbsolute(u.path) ? u.path : resolve(cwd, u.path) }) };
    },
    out(text) {
      if (!outFailed) process.stdout.write(text);
    },
    err: (text) => void process.stderr.write(text),
    async finish(code) {
      // Ordered after every earlier write: its callback runs once they have been written, or failed.
      if (!outFailed) {
        const err = await new Promise<Error | null | undefined>((done) => process.stdout.write('', done));
        // A failed write's 'error' event comes after its callback: let it report first.
        await new Promise((done) => setImmediate(done));
        if (err) failOut(err.message);
      }
      return outFailed && code === 0 ? 1 : code;
    },
  };
}
