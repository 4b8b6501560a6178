/**
 * The cost of isolation: the built Node server (dist/node/main.js, built here into a temporary folder)
 * answering the same 4 KB Pod review against the bundled policies, with reviews evaluated on the main
 * thread (AMENDER_WORKERS=0, as before the pool) and in the worker pool (one worker, one per available
 * core, and the default: one per core but one, at least 2). Per review, one connection at a time: latency (the pool adds a copy of the body
 * to a worker and of the answer back, and a thread hop each way). Under load (16 connections): requests/s,
 * p99 and the server's CPU per request (all its threads, from /proc; Linux only). Each server first takes
 * that load for 10 s (bench/load.ts).
 */
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { defaultWorkers } from '../../src/adapters/pool/index.js';
import { pod4k } from '../fixtures.js';
import { summarize, table, type Stats } from '../lib.js';
import { buildServers, cpuMicros, startServer } from '../servers.js';
import { loadFor, WARMUP_SECONDS } from '../load.js';

const SEQUENTIAL = { amount: 3_000 };
const LOAD = loadFor(16, 5);

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
  // At log level warn: no access log.
  const { child, port, stop } = await startServer(main, { AMENDER_LOG_LEVEL: 'warn', AMENDER_WORKERS: workers });
  try {
    const autocannon = createRequire(import.meta.url)('autocannon') as (opts: object) => Promise<any>;
    const target = { url: `http://127.0.0.1:${port}/mutate`, method: 'POST', headers: { 'content-type': 'application/json' }, body };
    await autocannon({ ...target, ...loadFor(LOAD.connections, WARMUP_SECONDS) });
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
    await stop();
  }
}

export async function run(): Promise<void> {
  const servers = await buildServers();
  try {
    const main = servers.amender;
    const body = JSON.stringify(pod4k());
    const cores = availableParallelism();
    const byDefault = defaultWorkers(cores);
    // The default first after in-process (the cost of isolation is read from it), then the counts around it.
    const variants: [string, string][] = [
      ['in-process (AMENDER_WORKERS=0)', '0'],
      [`pool, default (${byDefault} workers: one per core but one, at least 2)`, String(byDefault)],
      ['pool, 1 worker', '1'],
      ...(cores !== byDefault ? ([[`pool, one per core (${cores} workers)`, String(cores)]] as [string, string][]) : []),
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
    const pooled = results[1][1];
    console.log(
      `cost of isolation (default pool vs in-process): ${((pooled.p50ms - base.p50ms) * 1000).toFixed(0)} µs median latency per review one at a time, throughput ${(pooled.requestsPerSecond / base.requestsPerSecond).toFixed(2)}×` +
        (pooled.cpuMicros !== undefined && base.cpuMicros !== undefined ? `, CPU per review ${(pooled.cpuMicros - base.cpuMicros).toFixed(0)} µs more` : ''),
    );
  } finally {
    servers.remove();
  }
}
