/**
 * Requests/s and p99 latency of the Node server answering `POST /mutate` with a 4 KB Pod review, under a
 * bounded loopback load (autocannon: 16 connections, at most 5 s and 40 000 requests), next to a trivial
 * Hono handler (reads the body, answers a constant) served by the same adapter, on every Node of
 * bench/nodes.ts (the running one and Node 24). The server runs in a
 * child process so the load generator does not share its event loop. Besides throughput and latency,
 * which on a small shared machine also measure the load generator competing for the same cores, each
 * row gives the server process's own CPU time per request (user + system, from `process.cpuUsage()`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { pod4k } from '../fixtures.js';
import { table } from '../lib.js';
import { benchNodes, type BenchNode } from '../nodes.js';

const SERVE_VARIABLE = 'AMENDER_BENCH_SERVE';
const LOAD = { connections: 16, duration: 5, maxOverallRequests: 40_000 };

interface LoadFigures {
  requestsPerSecond: number;
  /** Server CPU (user + system) per request, microseconds. */
  cpuMicros: number;
  p50ms: number;
  p99ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function serve(variant: string): Promise<void> {
  const { startNodeServer } = await import('../../src/adapters/node.js');
  let fetch: (req: Request) => Response | Promise<Response>;
  if (variant === 'trivial') {
    const { Hono } = await import('hono');
    const app = new Hono();
    app.post('/mutate', async (c) => {
      await c.req.text();
      return c.json({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'x', allowed: true } });
    });
    fetch = app.fetch;
  } else {
    const { createApp } = await import('../../src/server/index.js');
    const { fixedPolicySet } = await import('../../src/server/index.js');
    const { loadPolicies } = await import('../../src/cli/load.js');
    const { nodeCliIO } = await import('../../src/cli/node-io.js');
    const { set } = await loadPolicies(['bundled'], nodeCliIO());
    fetch = createApp({ policies: fixedPolicySet(set, 'bundled') }).app.fetch;
  }
  const server = await startNodeServer({ fetch, port: 0, host: '127.0.0.1' });
  process.on('message', () => process.send!(process.cpuUsage()));
  process.stdout.write(`LISTENING ${server.port}\n`);
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

async function measure(variant: string, body: string, node: BenchNode): Promise<LoadFigures> {
  // The same loader as this process (bench/loader, or tsx when run directly), on `node`.
  const child = spawn(node.path, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, [SERVE_VARIABLE]: variant },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const cpu = () =>
    new Promise<number>((resolve) => {
      child.once('message', (u: NodeJS.CpuUsage) => resolve(u.user + u.system));
      child.send('cpu');
    });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let seen = '';
      child.stdout!.on('data', (d: Buffer) => {
        seen += d.toString();
        const m = /LISTENING (\d+)/.exec(seen);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`bench server (${variant}) exited with ${code}`)));
      setTimeout(() => reject(new Error(`bench server (${variant}) did not start in 30 s`)), 30_000).unref();
    });
    const autocannon = createRequire(import.meta.url)('autocannon') as (opts: object) => Promise<any>;
    const target = { url: `http://127.0.0.1:${port}/mutate`, method: 'POST', headers: { 'content-type': 'application/json' }, body };
    await autocannon({ ...target, connections: 4, amount: 2_000 }); // warm-up: JIT, caches
    const cpuBefore = await cpu();
    const r = await autocannon({ ...target, ...LOAD });
    const cpuAfter = await cpu();
    return {
      requestsPerSecond: r.requests.total / r.duration,
      cpuMicros: (cpuAfter - cpuBefore) / r.requests.total,
      p50ms: r.latency.p50,
      p99ms: r.latency.p99,
      requests: r.requests.total,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
    };
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
}

export async function run(): Promise<void> {
  const { nodes, note } = await benchNodes();
  if (note) console.log(`\n(${note})`);
  for (const node of nodes) await runOn(node);
}

/** The server runs on `node` (bench/nodes.ts: the running Node and Node 24); autocannon runs here. */
async function runOn(node: BenchNode): Promise<void> {
  const body = JSON.stringify(pod4k());
  const amender = await measure('amender', body, node);
  const trivial = await measure('trivial', body, node);
  const row = (name: string, f: LoadFigures) => ({
    server: name,
    'req/s': f.requestsPerSecond.toFixed(0),
    'server CPU/req': `${f.cpuMicros.toFixed(0)} µs`,
    'p50 ms': f.p50ms.toFixed(2),
    'p99 ms': f.p99ms.toFixed(2),
    requests: f.requests,
    'non-2xx': f.non2xx,
    errors: f.errors,
  });
  table(`HTTP on ${node.label} (${node.version}): POST /mutate, 4 KB Pod, bundled policies, ${LOAD.connections} connections, ≤${LOAD.duration} s / ≤${LOAD.maxOverallRequests} requests`, [
    row('amender (Node adapter)', amender),
    row('trivial Hono handler', trivial),
  ]);
  console.log(
    `ratio amender/trivial: throughput ${(amender.requestsPerSecond / trivial.requestsPerSecond).toFixed(2)}×, p99 latency ${(amender.p99ms / trivial.p99ms).toFixed(2)}×, server CPU per request ${(amender.cpuMicros / trivial.cpuMicros).toFixed(2)}×`,
  );
}

if (process.env[SERVE_VARIABLE]) await serve(process.env[SERVE_VARIABLE]);
