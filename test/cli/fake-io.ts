import type { CliIO } from '../../src/cli/io.js';

export interface FakeIO extends CliIO {
  stdout: string;
  stderr: string;
}

/**
 * An in-memory CliIO: `files` maps paths (`a/b.yaml`) to text; folders are implied by the paths. Reading
 * a missing file fails as node:fs does (code ENOENT).
 */
export function fakeIO(files: Record<string, string>, stdin = ''): FakeIO {
  const norm = (p: string) => p.replace(/^\.\//, '').replace(/\/+$/, '');
  const io: FakeIO = {
    stdout: '',
    stderr: '',
    readStdin: async () => stdin,
    async readFile(path) {
      const p = norm(path);
      if (!Object.prototype.hasOwnProperty.call(files, p)) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
      return files[p];
    },
    async listDir(path) {
      const p = norm(path);
      const prefix = p === '' || p === '.' ? '' : `${p}/`;
      const names = new Set<string>();
      for (const f of Object.keys(files)) if (f.startsWith(prefix)) names.add(f.slice(prefix.length).split('/')[0]);
      if (names.size === 0 || Object.prototype.hasOwnProperty.call(files, p)) return undefined;
      return [...names].sort();
    },
    out: (t) => void (io.stdout += t),
    err: (t) => void (io.stderr += t),
  };
  return io;
}
