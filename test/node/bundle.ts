/** Starts the built Node server (dist/node/main.js) as a child process and reads its JSON log lines. */
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, SERVER_BUNDLE } from './built.js';

export interface Running {
  child: ChildProcess;
  url: string;
  /** The JSON log lines written so far (standard output). */
  lines: Record<string, unknown>[];
  /** What was written on standard error so far. */
  stderr(): string;
  exit: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /**
   * When the server counts as started: `loaded` (default) once every policy set's first load has ended
   * (the "policy sets loaded" line), `listening` as soon as it listens (sets may still be loading).
   */
  until?: 'listening' | 'loaded';
  /** The Node binary that runs the bundle (default: the one running the tests). */
  node?: string;
  /** Arguments after the bundle's path (`--print-example`, as `npm start` gives). */
  args?: string[];
}

export function startBundle(env: Record<string, string>, { until = 'loaded', node = process.execPath, args = [] }: StartOptions = {}): Promise<Running> {
  const child = spawn(node, [SERVER_BUNDLE, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', AMENDER_HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  // 'close': the process has exited and its output has been read to the end.
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start within 15 s')), 15_000);
    let buffered = '';
    let stderr = '';
    let url: string | undefined;
    let loaded = false;
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) !== -1) {
        const line = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
        buffered = buffered.slice(nl + 1);
        lines.push(line);
        if (line.msg === 'listening') url = String(line.url);
        if (line.msg === 'policy sets loaded') loaded = true;
        if (url !== undefined && (loaded || until === 'listening')) {
          clearTimeout(timer);
          resolve({
            child,
            url,
            lines,
            stderr: () => stderr,
            exit,
            stop: () => {
              if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
              return exit;
            },
          });
        }
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}: ${stderr}`));
    });
  });
}


/** Polls `check` until it holds (every 50 ms, at most `ms`); fails naming `what`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
