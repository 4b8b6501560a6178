/** The real CliIO: the process's stdin/stdout/stderr and the file system, paths relative to `cwd`. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIO } from './io.js';

export function nodeCliIO(cwd: string = process.cwd()): CliIO {
  return {
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    readFile: (path) => readFile(resolve(cwd, path), 'utf8'),
    async listDir(path) {
      const full = resolve(cwd, path);
      const info = await stat(full).catch(() => undefined);
      if (!info?.isDirectory()) return undefined;
      return (await readdir(full)).sort();
    },
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
  };
}
