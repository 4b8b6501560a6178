/**
 * The built Node server (dist/node/main.js) for the measuring scripts of this folder: started on loopback
 * with the environment given, its JSON log lines collected, ready once its policy sets have loaded.
 *
 *   const server = await startBuiltServer(env);                     // node dist/node/main.js
 *   const server = await startBuiltServer(env, (main) => ['/bin/sh', ['-c', '... exec "$0" "$1"', process.execPath, main]]);
 *   server.url; server.lines; server.child; server.child.kill();
 *   option("reviews", 64);                                          // --reviews N on the command line
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Starts the server (through `command` when given: what to run for the server's script) and waits until it is ready. */
export async function startBuiltServer(env, command = (main) => [process.execPath, [main]]) {
  const [file, args] = command(join(ROOT, 'dist/node/main.js'));
  const child = spawn(file, args, { env: { ...process.env, PORT: '0', AMENDER_HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = [];
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop();
    for (const line of parts) {
      try {
        lines.push(JSON.parse(line));
      } catch {
        // not a log line
      }
    }
  });
  const started = performance.now();
  while (!lines.some((l) => l.msg === 'policy sets loaded')) {
    if (performance.now() - started > 60_000 || child.exitCode !== null) {
      child.kill();
      throw new Error('the server did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, lines, url: lines.find((l) => l.msg === 'listening').url };
}

/** The number after `--<name>` on the command line, or `fallback`. */
export function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}
