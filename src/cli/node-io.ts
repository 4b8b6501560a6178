/**
 * The real CliIO: the process's stdin/stdout/stderr and the file system, paths relative to `cwd`; policy
 * sources read as the Node server reads them (folders, S3 with the AWS variables of the environment, the
 * bundled set).
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { directorySource, nodeSourceResolvers } from '../sources/node/index.js';
import type { CliIO } from './io.js';

/** `bundled` for the CLI: the repository's `policies/` (dist/cli/amender.js and src/cli/*.ts are two levels below it). */
const BUNDLED_POLICIES_DIR = fileURLToPath(new URL('../../policies/', import.meta.url));

/** Strict, and drops a byte-order mark. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Text as the server reads a request body: UTF-8 or an error (never U+FFFD in place of bad bytes), a
 * byte-order mark dropped, so that `amender review` answers what POST /mutate would.
 */
function utf8Text(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new Error('not valid UTF-8');
  }
}

export function nodeCliIO(cwd: string = process.cwd()): CliIO {
  return {
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return utf8Text(Buffer.concat(chunks));
    },
    readFile: async (path) => utf8Text(await readFile(resolve(cwd, path))),
    writeFile: (path, text) => writeFile(resolve(cwd, path), text, 'utf8'),
    async listDir(path) {
      const full = resolve(cwd, path);
      const info = await stat(full).catch(() => undefined);
      if (!info?.isDirectory()) return undefined;
      return (await readdir(full)).sort();
    },
    policyResolvers() {
      const resolvers = nodeSourceResolvers({ env: process.env, bundledFolder: BUNDLED_POLICIES_DIR });
      if (resolve(cwd) === process.cwd()) return resolvers;
      // Relative paths are taken from `cwd` (and name what is read from them by their full path).
      return { ...resolvers, directory: (u) => directorySource({ uri: u.uri, path: isAbsolute(u.path) ? u.path : resolve(cwd, u.path) }) };
    },
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
  };
}
