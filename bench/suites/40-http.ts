/**
 * The Node server under load next to its floor. The built server (dist/node/main.js, access log at
 * `info` to a pipe, as in a container) answers `POST /mutate` with the pod-create review against the
 * bundled policies: with its review worker pool (the default) and with reviews on the main thread
 * (AMENDER_WORKERS=0). The floor is a trivial Hono handler that reads the body and answers fixed JSON,
 * served by the same adapter (bench/servers/trivial-main.ts). Load: autocannon, 50 connections; each server
 * takes 10 s of it first (bench/load.ts says why), then the three are measured in turn, three rounds of at
 * most 3 s each after 1 s unmeasured (loadInTurn and round say why). The servers run on every Node of
 * bench/nodes.ts (the running one and Node 24); autocannon runs here.
 *
 * Besides throughput and latency (which on a small shared machine also measure autocannon competing for
 * the same cores), each row gives the server's CPU time per request (every thread, from /proc), and the
 * overhead row subtracts from it the in-process review's CPU time (`answerReviewText`, every thread, per
 * review over a run of them, measured in the same run on the same Node, bench/review-time.ts) to compare
 * what the server spends around a review with what the trivial handler spends.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { formatNs, summarize, table } from '../lib.js';
import { recordGoal } from '../goals.js';
import { buildServers, cpuMicros, ROOT, startServer, type StartedServer } from '../servers.js';
import { benchNodes, type BenchNode } from '../nodes.js';
import { loadFor, WARMUP_SECONDS } from '../load.js';
import { parseReviewTimesLine, REVIEW_TIME_PREFIX, reviewTimes, type ReviewTimes } from '../review-time.js';

/** Rounds per server, taken in turn with the other servers', of LOAD each. */
const ROUNDS = 3;
const LOAD = loadFor(50, 3);
const ROUND_WARMUP = loadFor(50, 1);
const WARMUP = loadFor(50, WARMUP_SECONDS);
const COMMAND = 'npm run bench -- 40';
const execFileAsync = promisify(execFile);

interface LoadFigures {
  requestsPerSecond: number;
  /** Server CPU (every thread, user + system) per request, microseconds. */
  cpuMicros: number;
  p50ms: number;
  p99ms: number;
  requests: number;
  failures: number;
  /** Reviews per message to a review worker (from /metrics, warm-up included); undefined without a pool. */
  reviewsPerBatch?: number;
}

/** The sum of a metric's series in a /metrics text. */
function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

interface Target {
  server: StartedServer;
  request: { url: string; method: string; headers: Record<string, string>; body: string };
  /** What each round measured. */
  rounds: { requests: number; seconds: number; cpuMicros: number; p50ms: number; p99ms: number; failures: number }[];
}

const autocannon = createRequire(import.meta.url)('autocannon') as (opts: object) => Promise<any>;

/** Starts a built server and gives it WARMUP seconds of the load. */
async function started(main: string, env: Record<string, string>, body: string, node: BenchNode): Promise<Target> {
  const server = await startServer(main, env, node.path);
  const request = { url: `http://127.0.0.1:${server.port}/mutate`, method: 'POST', headers: { 'content-type': 'application/json' }, body };
  try {
    await autocannon({ ...request, ...WARMUP });
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { server, request, rounds: [] };
}

/**
 * One round of LOAD on a warm server, its CPU read from /proc before and after. A second of the load goes
 * first, unmeasured: a server that has idled while the others were measured starts slower (its caches and
 * heap sized down), and its p99 then measured that start (13–15 ms instead of 4–6 for the trivial handler).
 */
async function round(target: Target): Promise<void> {
  await autocannon({ ...target.request, ...ROUND_WARMUP });
  const pid = target.server.child.pid!;
  const before = cpuMicros(pid);
  const r = await autocannon({ ...target.request, ...LOAD });
  const after = cpuMicros(pid);
  target.rounds.push({
    requests: r.requests.total,
    seconds: r.duration,
    cpuMicros: before === undefined || after === undefined ? NaN : after - before,
    p50ms: r.latency.p50,
    p99ms: r.latency.p99,
    failures: r.non2xx + r.errors + r.timeouts,
  });
}

/** A server's figures over its rounds: totals for rate and CPU, the median round for latency. */
async function figures(target: Target): Promise<LoadFigures> {
  const sum = (pick: (r: Target['rounds'][number]) => number) => target.rounds.reduce((total, r) => total + pick(r), 0);
  const metrics = await (await fetch(`http://127.0.0.1:${target.server.port}/metrics`)).text();
  const batches = metricSum(metrics, 'amender_review_batches_total');
  const requests = sum((r) => r.requests);
  return {
    requestsPerSecond: requests / sum((r) => r.seconds),
    cpuMicros: sum((r) => r.cpuMicros) / requests,
    p50ms: summarize(target.rounds.map((r) => r.p50ms)).median,
    p99ms: summarize(target.rounds.map((r) => r.p99ms)).median,
    requests,
    failures: sum((r) => r.failures),
    reviewsPerBatch: batches > 0 ? metricSum(metrics, 'amender_reviews_total') / batches : undefined,
  };
}

/**
 * The three servers of a Node, each warmed, then measured in ROUNDS rounds taken in turn (trivial, pool, in
 * process, trivial, …), so that a minute in which the machine is slower weighs on all three alike: on this
 * shared machine the same server's rate moves by a third between minutes, and the CPU row divides one
 * server's figure by another's. The servers idle while the others are loaded.
 */
async function loadInTurn(servers: { main: string; env: Record<string, string> }[], body: string, node: BenchNode): Promise<LoadFigures[]> {
  const targets: Target[] = [];
  try {
    for (const { main, env } of servers) targets.push(await started(main, env, body, node));
    for (let r = 0; r < ROUNDS; r++) for (const target of targets) await round(target);
    return await Promise.all(targets.map(figures));
  } finally {
    await Promise.all(targets.map((t) => t.server.stop()));
  }
}

export async function run(): Promise<void> {
  const body = readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8');
  const servers = await buildServers();
  try {
    const { nodes, note } = await benchNodes();
    if (note) console.log(`\n(${note})`);
    for (const node of nodes) await runOn(node, servers, body, await reviewTimesOn(node, body));
  } finally {
    servers.remove();
  }
}

/** The in-process review times on this Node (bench/review-time.ts): here for the running Node, in a child for another. */
async function reviewTimesOn(node: BenchNode, body: string): Promise<ReviewTimes> {
  if (node.path === process.execPath) return reviewTimes(body);
  const { stdout } = await execFileAsync(node.path, ['--import', './bench/loader/register.mjs', 'bench/review-time.ts'], { cwd: ROOT });
  const line = stdout.split('\n').find((l) => l.startsWith(REVIEW_TIME_PREFIX));
  if (line === undefined) throw new Error(`bench/review-time.ts under ${node.path} printed no review time`);
  return parseReviewTimesLine(line);
}

async function runOn(node: BenchNode, servers: { amender: string; trivial: string }, body: string, review: ReviewTimes): Promise<void> {
  const reviewMicros = review.cpuNs / 1000;
  const [trivial, pooled, inProcess] = await loadInTurn(
    [
      { main: servers.trivial, env: {} },
      { main: servers.amender, env: {} },
      { main: servers.amender, env: { AMENDER_WORKERS: '0' } },
    ],
    body,
    node,
  );
  const overhead = (f: LoadFigures) => f.cpuMicros - reviewMicros;
  const row = (name: string, f: LoadFigures, withReview: boolean) => ({
    server: name,
    'req/s': f.requestsPerSecond.toFixed(0),
    'req/s ÷ trivial': (f.requestsPerSecond / trivial.requestsPerSecond).toFixed(2) + '×',
    'p50 ms': f.p50ms.toFixed(2),
    'p99 ms': f.p99ms.toFixed(2),
    'CPU/req': `${f.cpuMicros.toFixed(0)} µs`,
    'CPU/req − review': withReview ? `${overhead(f).toFixed(0)} µs` : '—',
    '÷ trivial CPU/req': withReview ? (overhead(f) / trivial.cpuMicros).toFixed(2) + '×' : '—',
    requests: f.requests,
    failures: f.failures,
  });
  table(
    `HTTP on ${node.label} (${node.version}): POST /mutate, pod-create (${body.length} B), bundled policies, ${LOAD.connections} connections, ${ROUNDS} rounds of ≤${LOAD.duration} s / ≤${LOAD.maxOverallRequests} requests per server, in turn; in-process review ${formatNs(review.cpuNs)} of CPU (median wall time ${formatNs(review.medianNs)}; on this Node)`,
    [
      row('amender, review pool (default)', pooled, true),
      row('amender, in-process (AMENDER_WORKERS=0)', inProcess, true),
      row('trivial Hono handler, same adapter', trivial, false),
    ],
  );
  console.log(
    `cost of isolation (pool vs in-process): throughput ${(pooled.requestsPerSecond / inProcess.requestsPerSecond).toFixed(2)}×, ` +
      `p99 ${(pooled.p99ms - inProcess.p99ms).toFixed(2)} ms, CPU per request ${(pooled.cpuMicros - inProcess.cpuMicros).toFixed(0)} µs; ` +
      `reviews per message to a worker ${pooled.reviewsPerBatch?.toFixed(2) ?? '—'}`,
  );

  const label = `Node server on ${node.label} (review pool)`;
  const id = (what: string) => `http-node${node.major}-${what}`;
  recordGoal({ id: id('throughput'), label: `${label} req/s ÷ trivial Hono handler, 50 connections`, value: pooled.requestsPerSecond / trivial.requestsPerSecond, unit: '×', min: 0.3, command: COMMAND });
  recordGoal({ id: id('p99'), label: `${label} p99, 50 connections`, value: pooled.p99ms, unit: 'ms', max: 10, command: COMMAND });
  recordGoal({ id: id('failures'), label: `${label} errors and non-2xx under load`, value: pooled.failures, unit: 'requests', max: 0, command: COMMAND });
  recordGoal({
    id: id('overhead'),
    label: `${label} CPU/request − in-process review, ÷ trivial's`,
    value: overhead(pooled) / trivial.cpuMicros,
    unit: '×',
    max: 1.5,
    command: COMMAND,
  });
}
