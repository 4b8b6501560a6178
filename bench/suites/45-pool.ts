/**
 * The cost of isolation: the built Node server (dist/node/main.js, built here into a temporary folder)
 * answering the same 4 KB Pod review against the bundled policies, with reviews evaluated on the main
 * thread (AMENDER_WORKERS=0, as before the pool) and in the worker pool (one worker, and the default: one
 * per available core). Per review, one connection at a time: latency (the pool adds a copy of the body
 * to a worker and of the answer back, and a thread hop each way). Under load (16 connections): requests/s,
 * p99 and the server's CPU per request (all its threads, from /proc; Linux only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pod4k } from '../fixtures.js';
import { summarize, table, type Stats } from '../lib.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SEQUENTIAL = { amount: 3_000 };
const LOAD = { connections: 16, duration: 5, maxOverallRequests: 40_000 };

interface Figures {
  /** One connection, one review at a time. */
  meanMs: number;
  p50ms: number;
  p99ms: number;
  /** Under LOAD. */
  requestsPerSecond: number;
  loadP99ms: number;
  cpuMicros: number | undefined;
  failures: number;
}

/** utime + stime of a process (every thread), microseconds; undefined where /proc is not there. */
function cpuMicros(pid: number): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return undefined;
  const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
  // Fields 14 and 15 of stat (utime, stime), in clock ticks of 1/100 s on Linux.
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** A free loopback port: the server runs at log level warn (no access log), so it does not log its port. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  server.close();
  await once(server, 'close');
  return port;
}

async function start(main: string, workers: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), AMENDER_HOST: '127.0.0.1', AMENDER_LOG_LEVEL: 'warn', AMENDER_WORKERS: workers },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the server (AMENDER_WORKERS=${workers}) exited with ${code}`);
  });
  const end = Date.now() + 30_000;
  for (;;) {
    const up = await Promise.race([fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false), exited]);
    if (up) return { child, port };
    if (Date.now() > end) throw new Error('the server did not start in 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `count` reviews one after the other on one keep-alive connection; nanoseconds each. */
async function sequential(port: number, body: string, count: number): Promise<Stats & { failures: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  let failures = 0;
  try {
    for (let i = 0; i < count; i++) {
      const t0 = process.hrtime.bigint();
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/mutate', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body);
      });
      samples.push(Number(process.hrtime.bigint() - t0));
      if (status !== 200) failures++;
    }
  } finally {
    agent.destroy();
  }
  return { ...summarize(samples), failures };
}

async function measure(main: string, workers: string, body: string): Promise<Figures> {
  const { child, port } = await start(main, workers);
  try {
    const autocannon = createRequire(import.meta.url)('autocannon') as (opts: object) => Promise<any>;
    const target = { url: `http://127.0.0.1:${port}/mutate`, method: 'POST', headers: { 'content-type': 'application/json' }, body };
    await autocannon({ ...target, connections: 4, amount: 2_000 }); // warm-up: JIT in every thread, caches
    const one = await sequential(port, body, SEQUENTIAL.amount);
    const before = cpuMicros(child.pid!);
    const load = await autocannon({ ...target, ...LOAD });
    const after = cpuMicros(child.pid!);
    return {
      meanMs: one.mean / 1e6,
      p50ms: one.median / 1e6,
      p99ms: one.p99 / 1e6,
      requestsPerSecond: load.requests.total / load.duration,
      loadP99ms: load.latency.p99,
      cpuMicros: before === undefined || after === undefined ? undefined : (after - before) / load.requests.total,
      failures: one.failures + load.non2xx + load.errors + load.timeouts,
    };
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
}

export async function run(): Promise<void> {
  const dist = mkdtempSync(join(tmpdir(), 'amender-bench-pool-'));
  try {
    const { buildTargets } = (await import(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href)) as {
      buildTargets(names: string[], options: { policiesDir: string; distDir: string }): Promise<unknown>;
    };
    await buildTargets(['node'], { policiesDir: join(ROOT, 'policies'), distDir: dist });
    const main = join(dist, 'node', 'main.js');
    const body = JSON.stringify(pod4k());
    const variants: [string, string][] = [
      ['in-process (AMENDER_WORKERS=0)', '0'],
      ['pool, 1 worker', '1'],
      [`pool, default (${availableParallelism()} workers)`, String(availableParallelism())],
    ];
    const results: [string, Figures][] = [];
    for (const [name, workers] of variants) results.push([name, await measure(main, workers, body)]);
    const base = results[0][1];
    table(`Review pool: POST /mutate, 4 KB Pod, bundled policies; latency one review at a time (${SEQUENTIAL.amount}), load ${LOAD.connections} connections ≤${LOAD.duration} s`, [
      ...results.map(([name, f]) => ({
        evaluation: name,
        'mean ms': f.meanMs.toFixed(3),
        'p50 ms': f.p50ms.toFixed(2),
        'p99 ms': f.p99ms.toFixed(2),
        'Δ p50/review': name === results[0][0] ? '—' : `${((f.p50ms - base.p50ms) * 1000).toFixed(0)} µs`,
        'req/s (load)': f.requestsPerSecond.toFixed(0),
        'p99 ms (load)': f.loadP99ms.toFixed(2),
        'CPU/req': f.cpuMicros === undefined ? 'n/a' : `${f.cpuMicros.toFixed(0)} µs`,
        failures: f.failures,
      })),
    ]);
    const pooled = results[results.length - 1][1];
    console.log(
      `cost of isolation (default pool vs in-process): ${((pooled.p50ms - base.p50ms) * 1000).toFixed(0)} µs median latency per review one at a time, throughput ${(pooled.requestsPerSecond / base.requestsPerSecond).toFixed(2)}×` +
        (pooled.cpuMicros !== undefined && base.cpuMicros !== undefined ? `, CPU per review ${(pooled.cpuMicros - base.cpuMicros).toFixed(0)} µs more` : ''),
    );
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
}
