/**
 * Built servers for the HTTP suites: the Node server bundle (dist/node/main.js and its worker, built into
 * a temporary folder exactly as scripts/build.mjs builds them) and the trivial Hono server of
 * servers/trivial-main.ts, started as child processes on a free loopback port, with their CPU time read
 * from /proc (every thread; Linux only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface BuiltServers {
  /** dist/node/main.js of the Node server. */
  amender: string;
  /** The trivial Hono server on the same adapter. */
  trivial: string;
  /** Removes the temporary folder. */
  remove(): void;
}

/**
 * An ES module bundle of `entry` (from the repository's root) built as scripts/build.mjs builds the Node
 * server's script: minified, Hono's Response and Headers bound to the light ones of src/adapters/web.
 */
export async function bundleAsDeployed(entry: string, outfile: string): Promise<void> {
  const esbuild = (await import('esbuild')) as typeof import('esbuild');
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, entry)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    inject: [join(ROOT, 'src/adapters/web/globals.ts')],
    logLevel: 'warning',
    banner: { js: "import { createRequire as __cr } from 'node:module';\nconst require = __cr(import.meta.url);" },
  });
}

/** Builds both servers into a temporary folder. */
export async function buildServers(): Promise<BuiltServers> {
  const dist = mkdtempSync(join(tmpdir(), 'amender-bench-servers-'));
  try {
    const { buildTargets } = (await import(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href)) as {
      buildTargets(names: string[], options: { policiesDir: string; distDir: string }): Promise<unknown>;
    };
    await buildTargets(['node'], { policiesDir: join(ROOT, 'policies'), distDir: dist });
    const trivial = join(dist, 'trivial', 'main.mjs');
    await bundleAsDeployed('bench/servers/trivial-main.ts', trivial);
    return { amender: join(dist, 'node', 'main.js'), trivial, remove: () => rmSync(dist, { recursive: true, force: true }) };
  } catch (err) {
    rmSync(dist, { recursive: true, force: true });
    throw err;
  }
}

/** utime + stime of a process (every thread), microseconds; undefined where /proc is not there. */
export function cpuMicros(pid: number): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return undefined;
  const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
  // Fields 14 and 15 of stat (utime, stime), in clock ticks of 1/100 s on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  server.close();
  await once(server, 'close');
  return port;
}

export interface StartedServer {
  child: ChildProcess;
  port: number;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** What startServer may add: Node's (or V8's) flags before the script, and a reader of standard output. */
export interface StartOptions {
  nodeFlags?: readonly string[];
  /** Reads standard output (its log, and what V8's tracing flags print) instead of draining it. */
  stdout?: (stream: NodeJS.ReadableStream) => void;
}

/**
 * Starts a built server with `env` (plus PATH, PORT, AMENDER_HOST) and waits until `/readyz` answers 200.
 * Standard output goes to a pipe this process drains, as a container runtime reads a container's log.
 */
export async function startServer(main: string, env: Record<string, string>, execPath = process.execPath, options: StartOptions = {}): Promise<StartedServer> {
  const port = await freePort();
  const child = spawn(execPath, [...(options.nodeFlags ?? []), main], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), AMENDER_HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (options.stdout) options.stdout(child.stdout!);
  else child.stdout!.resume();
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${main} (${JSON.stringify(env)}) exited with ${code}`);
  });
  exited.catch(() => {});
  const end = Date.now() + 30_000;
  try {
    for (;;) {
      const up = await Promise.race([fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false), exited]);
      if (up) return { child, port, stop };
      if (Date.now() > end) throw new Error(`${main} did not become ready in 30 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (err) {
    await stop();
    throw err;
  }
}
