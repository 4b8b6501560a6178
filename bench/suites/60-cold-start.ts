/**
 * Cold start: for each runtime, the time from starting the process (Node, Lambda) or the isolate's
 * runtime (Workers, workerd through miniflare) to the first reply to an AdmissionReview, with the 50
 * policies of bench/fixtures/policies-50 (embedded in each bundle at build time; the Node server also read
 * from that folder, as from a mounted ConfigMap), against the same start of a bare program: a `node` HTTP server
 * that answers "ok", a Lambda handler module that returns a constant, an empty Worker. (One more Lambda row
 * locates a cost: the same constant through a Web Request and Response, as a fetch-style handler; one
 * more Workers row, the empty Worker with dist/workers' size in a comment, shows what the bytes alone cost.)
 * The Workers goal row starts workerd through miniflare, as the Workers tests do; two more rows start the
 * same two workers on workerd alone, without miniflare's own start (over 200 ms that both pay through
 * miniflare, which narrows the goal row's ratio), so what the Worker itself costs is visible too.
 *
 * The Node and Lambda starts run on every Node of bench/nodes.ts (the running one and Node 24, which
 * deployments run), each with the V8 code caches the build wrote with Node 24 after a warm-up review
 * (src/adapters/script-cache.ts; another Node's V8 refuses them) and, on Node 22 or later, once more with
 * them turned off (NODE_DISABLE_COMPILE_CACHE=1),
 * and once with the server's review workers off (AMENDER_WORKERS=0), so what each costs is visible.
 *
 * Phases: a module preloaded with `--import` reports when the runtime is up (it runs first), and the
 * startup marks of src/adapters/startup-marks.ts (modules evaluated, listening, policy sets loaded) as
 * they happen, all as milliseconds since the spawn.
 *
 * Each figure is the median of ROUNDS starts, the runtimes interleaved so that machine noise spreads
 * over all of them. Everything runs on loopback and every wait is bounded.
 */
import { functionUrlEvent } from '../lambda-event.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Miniflare } from 'miniflare';
import { pod4k } from '../fixtures.js';
import { recordGoal } from '../goals.js';
import { table } from '../lib.js';
import { benchNodes, type BenchNode } from '../nodes.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const POLICIES = join(ROOT, 'bench/fixtures/policies-50');
const ROUNDS = Math.max(1, Number(process.env.AMENDER_BENCH_COLD_ROUNDS ?? 7));
const WAIT_MS = 30_000;
const COMMAND = 'npm run bench -- 60';
/** The workerd binary miniflare runs (the `workerd` package's main exports its path). */
const WORKERD = (createRequire(import.meta.url)('workerd') as { default: string }).default;
/** The file descriptor the phase probe writes to (3 carries the Lambda harness's results). */
const PROBE_FD = 4;

/** Milliseconds since the spawn, by phase: runtime, modules, listening, policies, ready, reply. */
type Start = Record<string, number>;

const PHASES: [string, string][] = [
  ['runtime', 'runtime up'],
  ['modules', 'modules loaded'],
  ['listening', 'listening'],
  ['policies', 'policies ready'],
  ['ready', 'ready'],
  ['reply', 'first reply'],
];
const MARKS: Record<string, string> = { 'amender:modules-loaded': 'modules', 'amender:listening': 'listening', 'amender:policies-ready': 'policies' };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const epochNow = () => performance.timeOrigin + performance.now();

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${WAIT_MS} ms`)), WAIT_MS))),
  ]);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const PROBE = `
import { isMainThread } from 'node:worker_threads';
if (isMainThread) {
  const { createWriteStream } = await import('node:fs');
  const { PerformanceObserver, performance } = await import('node:perf_hooks');
  const out = createWriteStream(null, { fd: ${PROBE_FD} });
  const send = (mark, at) => out.write(JSON.stringify({ mark, at }) + '\\n');
  send('runtime', performance.timeOrigin + performance.now());
  // Held globally: an observer nothing refers to may be collected, and the later marks lost.
  globalThis.__amenderColdStartProbe = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name.startsWith('amender:')) send(e.name, performance.timeOrigin + e.startTime);
  });
  globalThis.__amenderColdStartProbe.observe({ entryTypes: ['mark'] });
}
`;

interface Spawned {
  child: ReturnType<typeof spawn>;
  start: Start;
  stderr: () => string;
}

/** Spawns `node --import probe ...args`; the probe's marks land in `start` as ms since the spawn. */
function spawnProbed(node: BenchNode, probe: string, args: string[], env: Record<string, string>, stdin: 'pipe' | 'ignore'): Spawned {
  const t0 = epochNow();
  const child = spawn(node.path, ['--import', pathToFileURL(probe).href, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: [stdin, 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  const start: Start = {};
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdio[PROBE_FD] as Readable }).on('line', (line) => {
    const { mark, at } = JSON.parse(line) as { mark: string; at: number };
    const phase = mark === 'runtime' ? 'runtime' : MARKS[mark];
    if (phase && start[phase] === undefined) start[phase] = at - t0;
  });
  return { child, start, stderr: () => stderr };
}

/** Spawns an HTTP server, waits for a stdout line matching `ready`, sends one request; kills the process. */
async function httpStart(node: BenchNode, probe: string, args: string[], env: Record<string, string>, ready: RegExp, request: (port: number) => Promise<void>): Promise<Start> {
  const port = await freePort();
  const t0 = epochNow();
  const { child, start, stderr } = spawnProbed(node, probe, args, { PORT: String(port), ...env }, 'ignore');
  try {
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout! });
        lines.on('line', (line) => {
          if (ready.test(line)) {
            lines.close();
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr()}`)));
      }),
      args.join(' '),
    );
    start.ready = epochNow() - t0;
    await withTimeout(request(port), 'first request');
    start.reply = epochNow() - t0;
    return start;
  } finally {
    child.kill('SIGKILL');
  }
}

async function postReview(port: number, body: string, check: (reply: { response?: { allowed?: boolean; patch?: string } }) => void): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/mutate`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  if (res.status !== 200) throw new Error(`reply ${res.status}: ${await res.text()}`);
  check((await res.json()) as { response?: { allowed?: boolean; patch?: string } });
}

const LAMBDA_HARNESS = `
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
const out = createWriteStream(null, { fd: 3 });
const { handler } = await import(pathToFileURL(process.argv[2]).href);
// The startup marks made while importing (the probe's observer may not have run yet).
const marks = Object.fromEntries(performance.getEntriesByType('mark').map((e) => [e.name, performance.timeOrigin + e.startTime]));
out.write(JSON.stringify({ ready: true, marks }) + '\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const result = await handler(JSON.parse(line), { getRemainingTimeInMillis: () => 10000 });
  out.write(JSON.stringify(result) + '\\n');
}
`;

/** Spawns the harness on `module`, invokes it once with `event`: a Lambda environment's cold start. */
async function lambdaStart(
  node: BenchNode,
  probe: string,
  harness: string,
  module: string,
  env: Record<string, string>,
  event: unknown,
  check: (result: { statusCode: number; body?: string }) => void,
): Promise<Start> {
  const t0 = epochNow();
  const { child, start, stderr } = spawnProbed(node, probe, [harness, module], env, 'pipe');
  child.stdout!.resume();
  try {
    const lines = createInterface({ input: child.stdio[3] as Readable })[Symbol.asyncIterator]();
    const next = () =>
      withTimeout(
        lines.next().then((r) => {
          if (r.done) throw new Error(`the harness ended: ${stderr()}`);
          return JSON.parse(r.value as string) as Record<string, unknown>;
        }),
        'lambda harness',
      );
    const { marks } = (await next()) as { marks?: Record<string, number> };
    start.ready = epochNow() - t0;
    for (const [mark, at] of Object.entries(marks ?? {})) if (MARKS[mark] && start[MARKS[mark]] === undefined) start[MARKS[mark]] = at - t0;
    child.stdin!.write(JSON.stringify(event) + '\n');
    check((await next()) as unknown as { statusCode: number; body?: string });
    start.reply = epochNow() - t0;
    return start;
  } finally {
    child.kill('SIGKILL');
  }
}

/** Starts workerd with `options`, sends one request: a Worker's cold start (runtime start included). */
async function workerStart(options: ConstructorParameters<typeof Miniflare>[0], request: (origin: URL, mf: Miniflare) => Promise<void>): Promise<Start> {
  const t0 = performance.now();
  const mf = new Miniflare({ ...options, host: '127.0.0.1', port: 0, compatibilityDate: '2025-01-01' } as ConstructorParameters<typeof Miniflare>[0]);
  try {
    const origin = await withTimeout(mf.ready, 'miniflare');
    const ready = performance.now() - t0;
    await withTimeout(request(origin, mf), 'first worker request');
    return { ready, reply: performance.now() - t0 };
  } finally {
    await mf.dispose();
  }
}

/**
 * Spawns workerd itself on a one-worker configuration written into `work` (the module embedded from
 * `modulePath`, inside `work`: workerd reads embeds relative to the configuration, never above it; text
 * `bindings`), waits until its socket accepts (workerd listens once the worker's module is loaded) and
 * sends one request. Miniflare's own start is not in it: before it spawns workerd, miniflare encodes its
 * configuration (its helper workers and the module) in Node, ~50 ms of CPU for the empty worker and ~120
 * for a module of dist/workers' size on this machine, and it waits on its helper services: costs no deployment
 * pays.
 */
async function workerdStart(work: string, modulePath: string, bindings: Record<string, string>, request: (origin: URL) => Promise<void>): Promise<Start> {
  const port = await freePort();
  const config = join(work, `workerd-${port}.capnp`);
  const quoted = (text: string) => JSON.stringify(text); // capnp text strings take JSON's escapes
  writeFileSync(
    config,
    [
      'using Workerd = import "/workerd/workerd.capnp";',
      'const config :Workerd.Config = (',
      '  services = [ (name = "main", worker = .worker) ],',
      `  sockets = [ (name = "http", address = ${quoted(`127.0.0.1:${port}`)}, http = (), service = "main") ],`,
      ');',
      'const worker :Workerd.Worker = (',
      `  modules = [ (name = "index.js", esModule = embed ${quoted(relative(work, modulePath))}) ],`,
      '  compatibilityDate = "2025-01-01",',
      `  bindings = [ ${Object.entries(bindings).map(([name, text]) => `(name = ${quoted(name)}, text = ${quoted(text)})`).join(', ')} ],`,
      ');',
      '',
    ].join('\n'),
  );
  const t0 = performance.now();
  const child = spawn(WORKERD, ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const accepting = async () => {
      for (;;) {
        if (child.exitCode !== null) throw new Error(`workerd exited with ${child.exitCode}: ${stderr.slice(0, 500)}`);
        const up = await new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.destroy();
            resolve(true);
          });
          socket.once('error', () => resolve(false));
        });
        if (up) return;
        await new Promise((r) => setTimeout(r, 1));
      }
    };
    await withTimeout(accepting(), 'workerd');
    const ready = performance.now() - t0;
    await withTimeout(request(new URL(`http://127.0.0.1:${port}/`)), 'first workerd request');
    return { ready, reply: performance.now() - t0 };
  } finally {
    child.kill('SIGKILL');
  }
}

/** One measured start: its row label, and the bare start it is compared with (none for the bare ones). */
interface Run {
  name: string;
  bare?: string;
  start: () => Promise<Start>;
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'amender-cold-'));
  try {
    const dist = join(work, 'dist');
    const { buildTargets } = (await import(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href)) as {
      buildTargets(
        names: string[],
        options: { policiesDir: string; distDir: string },
      ): Promise<{ target: string; bytes: number; gzip: number; lazyChunkBytes?: number; compileCacheBytes?: number }[]>;
    };
    const sizes = await buildTargets(['node', 'lambda', 'workers'], { policiesDir: POLICIES, distDir: dist });
    const { nodes, note } = await benchNodes();

    const body = JSON.stringify(pod4k());
    const patched = (reply: { response?: { allowed?: boolean; patch?: string } }) => {
      if (!reply.response?.allowed || !reply.response.patch) throw new Error(`expected an allowed, patched reply: ${JSON.stringify(reply).slice(0, 300)}`);
    };
    const probe = join(work, 'probe.mjs');
    writeFileSync(probe, PROBE);
    const bareServer = join(work, 'bare-server.mjs');
    writeFileSync(bareServer, "import { createServer } from 'node:http';\nconst s = createServer((q, r) => { q.resume(); q.on('end', () => r.end('ok')); });\ns.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));\n");
    const harness = join(work, 'lambda-harness.mjs');
    writeFileSync(harness, LAMBDA_HARNESS);
    const bareHandler = join(work, 'bare-handler.mjs');
    writeFileSync(bareHandler, "export const handler = async () => ({ statusCode: 200, body: 'ok', isBase64Encoded: false });\n");
    // The same through a Web Request and Response, as any fetch-style (Hono) handler: the first one loads
    // Node's fetch implementation (undici), a cost the bare handler never pays.
    const webHandler = join(work, 'web-handler.mjs');
    writeFileSync(
      webHandler,
      "export const handler = async (event) => {\n  const request = new Request('https://' + event.headers.host + event.rawPath, { method: event.requestContext.http.method, headers: event.headers, body: event.body });\n  const response = new Response(await request.text() ? 'ok' : '', { headers: { 'content-type': 'text/plain' } });\n  return { statusCode: response.status, body: await response.text(), isBase64Encoded: false };\n};\n",
    );
    const event = functionUrlEvent(body);
    // The module given whole: with a bare `script`, miniflare first parses it in Node to find its imports
    // (a second per megabyte), which is not part of a Worker's cold start.
    const workerPath = join(dist, 'workers/index.js');
    const workerModules = [{ type: 'ESModule' as const, path: workerPath, contents: readFileSync(workerPath, 'utf8') }];
    const emptyPath = join(work, 'empty-worker.js');
    const emptyWorker = "export default { fetch() { return new Response('ok'); } };\n";
    const emptyModules = [{ type: 'ESModule' as const, path: emptyPath, contents: emptyWorker }];
    writeFileSync(emptyPath, emptyWorker); // for workerd alone, which reads it from its configuration
    // The empty worker carrying as many bytes as dist/workers in one comment: what the script's size
    // alone costs (handing it to workerd, scanning it), before any of it is compiled or run.
    const paddedModules = [{ type: 'ESModule' as const, path: emptyPath, contents: `${emptyWorker}/*${' '.repeat(Math.max(0, workerModules[0].contents.length - emptyWorker.length - 4))}*/` }];

    const serverLoaded = /"msg":"policy sets loaded"/;
    const server = { AMENDER_HOST: '127.0.0.1' };
    const noCache = { NODE_DISABLE_COMPILE_CACHE: '1' };
    const runs: Run[] = [];
    for (const node of nodes) {
      const v = node.label;
      const cached = node.major >= 22;
      const amenderServer = (env: Record<string, string>) => () => httpStart(node, probe, [join(dist, 'node/main.js')], { ...server, ...env }, serverLoaded, (p) => postReview(p, body, patched));
      const amenderLambda = (env: Record<string, string>) => () =>
        lambdaStart(node, probe, harness, join(dist, 'lambda/index.mjs'), { AMENDER_LOG_LEVEL: 'warn', ...env }, event, (r) => {
          if (r.statusCode !== 200) throw new Error(`lambda replied ${r.statusCode}: ${r.body}`);
          patched(JSON.parse(r.body!) as { response?: { allowed?: boolean; patch?: string } });
        });
      const bareHttp = `${v}: bare HTTP server`;
      const bareLambda = `${v}: bare Lambda handler module`;
      runs.push(
        {
          name: bareHttp,
          start: () =>
            httpStart(node, probe, [bareServer], {}, /listening/, async (p) => {
              const res = await fetch(`http://127.0.0.1:${p}/`, { method: 'POST', body });
              if ((await res.text()) !== 'ok') throw new Error('bare server');
            }),
        },
        { name: `${v}: dist/node, 50 bundled policies`, bare: bareHttp, start: amenderServer({}) },
        ...(cached ? [{ name: `${v}: dist/node, without the code cache`, bare: bareHttp, start: amenderServer(noCache) }] : []),
        { name: `${v}: dist/node, AMENDER_WORKERS=0 (no review workers)`, bare: bareHttp, start: amenderServer({ AMENDER_WORKERS: '0' }) },
        { name: `${v}: dist/node, 50 policies from a folder`, bare: bareHttp, start: amenderServer({ AMENDER_POLICY_SOURCES: `file://${POLICIES}` }) },
        {
          name: bareLambda,
          start: () =>
            lambdaStart(node, probe, harness, bareHandler, {}, event, (r) => {
              if (r.statusCode !== 200) throw new Error('bare handler');
            }),
        },
        {
          name: `${v}: Lambda handler module with one Web Request/Response`,
          bare: bareLambda,
          start: () =>
            lambdaStart(node, probe, harness, webHandler, {}, event, (r) => {
              if (r.statusCode !== 200 || r.body !== 'ok') throw new Error('web handler');
            }),
        },
        { name: `${v}: dist/lambda, 50 bundled policies`, bare: bareLambda, start: amenderLambda({}) },
        ...(cached ? [{ name: `${v}: dist/lambda, without the code cache`, bare: bareLambda, start: amenderLambda(noCache) }] : []),
      );
    }
    runs.push(
      {
        name: 'Workers: empty worker',
        start: () =>
          workerStart({ modules: emptyModules, modulesRoot: work }, async (origin) => {
            const res = await fetch(new URL('/mutate', origin), { method: 'POST', body });
            if ((await res.text()) !== 'ok') throw new Error('empty worker');
          }),
      },
      {
        name: "Workers: empty worker with dist/workers' size (one comment)",
        bare: 'Workers: empty worker',
        start: () =>
          workerStart({ modules: paddedModules, modulesRoot: work }, async (origin) => {
            const res = await fetch(new URL('/mutate', origin), { method: 'POST', body });
            if ((await res.text()) !== 'ok') throw new Error('padded empty worker');
          }),
      },
      {
        name: 'Workers: dist/workers, 50 bundled policies',
        bare: 'Workers: empty worker',
        start: () =>
          workerStart({ modules: workerModules, modulesRoot: work, bindings: { AMENDER_LOG_LEVEL: 'warn' } }, async (origin) => {
            const res = await fetch(new URL('/mutate', origin), { method: 'POST', body, headers: { 'content-type': 'application/json' } });
            if (res.status !== 200) throw new Error(`worker replied ${res.status}: ${await res.text()}`);
            patched((await res.json()) as { response?: { allowed?: boolean; patch?: string } });
          }),
      },
      {
        name: 'Workers, workerd alone: empty worker',
        start: () =>
          workerdStart(work, emptyPath, {}, async (origin) => {
            const res = await fetch(new URL('/mutate', origin), { method: 'POST', body });
            if ((await res.text()) !== 'ok') throw new Error('empty worker (workerd alone)');
          }),
      },
      {
        name: 'Workers, workerd alone: dist/workers, 50 bundled policies',
        bare: 'Workers, workerd alone: empty worker',
        start: () =>
          workerdStart(work, workerPath, { AMENDER_LOG_LEVEL: 'warn' }, async (origin) => {
            const res = await fetch(new URL('/mutate', origin), { method: 'POST', body, headers: { 'content-type': 'application/json' } });
            if (res.status !== 200) throw new Error(`worker (workerd alone) replied ${res.status}: ${await res.text()}`);
            patched((await res.json()) as { response?: { allowed?: boolean; patch?: string } });
          }),
      },
    );

    const results = new Map<string, Start[]>(runs.map((r) => [r.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of runs) results.get(r.name)!.push(await r.start());
    }
    const phase = (name: string, p: string): number | undefined => {
      const xs = results.get(name)!.map((s) => s[p]).filter((x): x is number => x !== undefined);
      return xs.length === results.get(name)!.length ? median(xs) : undefined;
    };
    const reply = (name: string) => phase(name, 'reply')!;
    const ms = (x: number | undefined) => (x === undefined ? '-' : `${x.toFixed(0)} ms`);

    if (note) console.log(`\n(${note})`);
    table(
      `Cold start to the first reply, 50 policies (median of ${ROUNDS}; ratio to the bare start of the same runtime and Node, same run)`,
      runs.map((r) => ({ start: r.name, 'first reply': ms(reply(r.name)), ratio: r.bare ? `${(reply(r.name) / reply(r.bare)).toFixed(2)}×` : '1.00×' })),
    );
    table(
      `Phases of those starts (median ms since the spawn; "ready": listening with the policy sets loaded / handler module imported / isolate up)`,
      runs.map((r) => Object.fromEntries([['start', r.name], ...PHASES.map(([p, label]) => [label, ms(phase(r.name, p))])])),
    );
    table(
      'Bundles measured (built with the 50 policies; bytes loaded at start)',
      sizes.map((s) => ({
        target: s.target,
        bytes: `${(s.bytes / 1024).toFixed(0)} KiB`,
        gzip: `${(s.gzip / 1024).toFixed(0)} KiB`,
        'loaded on demand': s.lazyChunkBytes ? `${(s.lazyChunkBytes / 1024).toFixed(0)} KiB` : '-',
        'code cache': s.compileCacheBytes ? `${(s.compileCacheBytes / 1024).toFixed(0)} KiB` : '-',
      })),
    );

    for (const node of nodes) {
      const goal = node.major >= 24 ? 1.5 : 2;
      const v = node.label;
      recordGoal({
        id: `cold-start-node${node.major}-knative`,
        label: `cold start, Node (Knative) ÷ bare HTTP server, ${v}`,
        value: reply(`${v}: dist/node, 50 bundled policies`) / reply(`${v}: bare HTTP server`),
        unit: '×',
        max: goal,
        command: COMMAND,
      });
      recordGoal({
        id: `cold-start-node${node.major}-lambda`,
        label: `cold start, Lambda handler ÷ bare handler module, ${v}`,
        value: reply(`${v}: dist/lambda, 50 bundled policies`) / reply(`${v}: bare Lambda handler module`),
        unit: '×',
        max: goal,
        command: COMMAND,
      });
    }
    recordGoal({
      id: 'cold-start-workers',
      label: 'cold start, Workers ÷ empty worker',
      value: reply('Workers: dist/workers, 50 bundled policies') / reply('Workers: empty worker'),
      unit: '×',
      max: 1.3,
      command: COMMAND,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
