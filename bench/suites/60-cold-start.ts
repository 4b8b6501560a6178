/**
 * Cold start: for each runtime, the time from starting the process (Node, Lambda) or the isolate's
 * runtime (Workers, workerd through miniflare) to the first reply to an AdmissionReview, with the 50
 * policies of bench/fixtures/policies-50 (embedded in each bundle at build time; the Node server also read
 * from that folder, as from a mounted ConfigMap), against the same start of a bare program: a `node` HTTP server
 * that answers "ok", a Lambda handler module that returns a constant, an empty Worker.
 *
 * Each figure is the median of ROUNDS starts, the runtimes interleaved so that machine noise spreads
 * over all of them. Everything runs on loopback and every wait is bounded.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Miniflare } from 'miniflare';
import { pod4k } from '../fixtures.js';
import { table } from '../lib.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const POLICIES = join(ROOT, 'bench/fixtures/policies-50');
const ROUNDS = Number(process.env.AMENDER_BENCH_COLD_ROUNDS ?? 7);
const WAIT_MS = 30_000;

interface Start {
  /** Process/isolate start to ready to serve (listening, init done). */
  readyMs: number;
  /** Process/isolate start to the first reply received. */
  replyMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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

/** Spawns `args`, waits for a stdout line matching `ready`, then sends one request; kills the process. */
async function httpStart(args: string[], env: Record<string, string>, ready: RegExp, request: (port: number) => Promise<void>, port: number): Promise<Start> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
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
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      }),
      args.join(' '),
    );
    const readyMs = performance.now() - t0;
    await withTimeout(request(port), 'first request');
    return { readyMs, replyMs: performance.now() - t0 };
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
out.write('{"ready":true}\\n');
for await (const line of createInterface({ input: process.stdin })) {
  const result = await handler(JSON.parse(line), { getRemainingTimeInMillis: () => 10000 });
  out.write(JSON.stringify(result) + '\\n');
}
`;

/** Spawns the harness on `module`, invokes it once with `event`: a Lambda environment's cold start. */
async function lambdaStart(harness: string, module: string, env: Record<string, string>, event: unknown, check: (result: { statusCode: number; body?: string }) => void): Promise<Start> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [harness, module], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const lines = createInterface({ input: child.stdio[3] as Readable })[Symbol.asyncIterator]();
    const next = () =>
      withTimeout(
        lines.next().then((r) => {
          if (r.done) throw new Error(`the harness ended: ${stderr}`);
          return JSON.parse(r.value as string) as Record<string, unknown>;
        }),
        'lambda harness',
      );
    await next();
    const readyMs = performance.now() - t0;
    child.stdin!.write(JSON.stringify(event) + '\n');
    check((await next()) as unknown as { statusCode: number; body?: string });
    return { readyMs, replyMs: performance.now() - t0 };
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
    const readyMs = performance.now() - t0;
    await withTimeout(request(origin, mf), 'first worker request');
    return { readyMs, replyMs: performance.now() - t0 };
  } finally {
    await mf.dispose();
  }
}

function functionUrlEvent(body: string): unknown {
  const host = 'x.lambda-url.eu-west-1.on.aws';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/mutate',
    rawQueryString: '',
    headers: { host, 'content-type': 'application/json' },
    requestContext: { domainName: host, http: { method: 'POST', path: '/mutate', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' }, stage: '$default' },
    body,
    isBase64Encoded: false,
  };
}

export async function run(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'amender-cold-'));
  try {
    const dist = join(work, 'dist');
    const { buildTargets } = (await import(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href)) as {
      buildTargets(names: string[], options: { policiesDir: string; distDir: string }): Promise<{ target: string; bytes: number; gzip: number; lazyChunkBytes?: number }[]>;
    };
    const sizes = await buildTargets(['node', 'lambda', 'workers'], { policiesDir: POLICIES, distDir: dist });

    const body = JSON.stringify(pod4k());
    const patched = (reply: { response?: { allowed?: boolean; patch?: string } }) => {
      if (!reply.response?.allowed || !reply.response.patch) throw new Error(`expected an allowed, patched reply: ${JSON.stringify(reply).slice(0, 300)}`);
    };
    const bareServer = join(work, 'bare-server.mjs');
    writeFileSync(bareServer, "import { createServer } from 'node:http';\nconst s = createServer((q, r) => { q.resume(); q.on('end', () => r.end('ok')); });\ns.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening'));\n");
    const harness = join(work, 'lambda-harness.mjs');
    writeFileSync(harness, LAMBDA_HARNESS);
    const bareHandler = join(work, 'bare-handler.mjs');
    writeFileSync(bareHandler, "export const handler = async () => ({ statusCode: 200, body: 'ok', isBase64Encoded: false });\n");
    const event = functionUrlEvent(body);
    // The module given whole: with a bare `script`, miniflare first parses it in Node to find its imports
    // (a second per megabyte), which is not part of a Worker's cold start.
    const workerPath = join(dist, 'workers/index.js');
    const workerModules = [{ type: 'ESModule' as const, path: workerPath, contents: readFileSync(workerPath, 'utf8') }];
    const emptyPath = join(work, 'empty-worker.js');
    const emptyModules = [{ type: 'ESModule' as const, path: emptyPath, contents: "export default { fetch() { return new Response('ok'); } };\n" }];

    const runs: Record<string, () => Promise<Start>> = {
      'node: bare HTTP server': async () => {
        const port = await freePort();
        return httpStart([bareServer], { PORT: String(port) }, /listening/, async (p) => {
          const res = await fetch(`http://127.0.0.1:${p}/`, { method: 'POST', body });
          if ((await res.text()) !== 'ok') throw new Error('bare server');
        }, port);
      },
      // The server listens at once and says "policy sets loaded" once its policies are; a review before
      // that would be answered 503.
      'node: dist/node (50 bundled policies)': async () => {
        const port = await freePort();
        return httpStart([join(dist, 'node/main.js')], { PORT: String(port), AMENDER_HOST: '127.0.0.1' }, /"msg":"policy sets loaded"/, (p) => postReview(p, body, patched), port);
      },
      'node: dist/node (50 policies from a folder)': async () => {
        const port = await freePort();
        return httpStart(
          [join(dist, 'node/main.js')],
          { PORT: String(port), AMENDER_HOST: '127.0.0.1', AMENDER_POLICY_SOURCES: `file://${POLICIES}` },
          /"msg":"policy sets loaded"/,
          (p) => postReview(p, body, patched),
          port,
        );
      },
      'lambda: bare handler module': () => lambdaStart(harness, bareHandler, {}, event, (r) => {
        if (r.statusCode !== 200) throw new Error('bare handler');
      }),
      'lambda: dist/lambda (50 bundled policies)': () =>
        lambdaStart(harness, join(dist, 'lambda/index.mjs'), { AMENDER_LOG_LEVEL: 'warn' }, event, (r) => {
          if (r.statusCode !== 200) throw new Error(`lambda replied ${r.statusCode}: ${r.body}`);
          patched(JSON.parse(r.body!));
        }),
      'workers: empty worker': () =>
        workerStart({ modules: emptyModules, modulesRoot: work }, async (origin) => {
          const res = await fetch(new URL('/mutate', origin), { method: 'POST', body });
          if ((await res.text()) !== 'ok') throw new Error('empty worker');
        }),
      'workers: dist/workers (50 bundled policies)': () =>
        workerStart({ modules: workerModules, modulesRoot: work, bindings: { AMENDER_LOG_LEVEL: 'warn' } }, async (origin) => {
          const res = await fetch(new URL('/mutate', origin), { method: 'POST', body, headers: { 'content-type': 'application/json' } });
          if (res.status !== 200) throw new Error(`worker replied ${res.status}: ${await res.text()}`);
          patched((await res.json()) as { response?: { allowed?: boolean; patch?: string } });
        }),
    };

    const results = new Map<string, Start[]>(Object.keys(runs).map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, start] of Object.entries(runs)) results.get(name)!.push(await start());
    }
    const figure = (name: string) => ({ ready: median(results.get(name)!.map((s) => s.readyMs)), reply: median(results.get(name)!.map((s) => s.replyMs)) });
    const pairs: [string, string, string][] = [
      ['Node (Knative)', 'node: dist/node (50 bundled policies)', 'node: bare HTTP server'],
      ['Node (Knative)', 'node: dist/node (50 policies from a folder)', 'node: bare HTTP server'],
      ['AWS Lambda', 'lambda: dist/lambda (50 bundled policies)', 'lambda: bare handler module'],
      ['Cloudflare Workers', 'workers: dist/workers (50 bundled policies)', 'workers: empty worker'],
    ];
    table(
      `Cold start to the first reply, 50 policies (median of ${ROUNDS}; ready = listening / init done / isolate up)`,
      pairs.flatMap(([runtime, amender, bare]) => {
        const a = figure(amender);
        const b = figure(bare);
        const row = { runtime, start: amender.replace(/^[a-z]+: /, ''), ready: `${a.ready.toFixed(0)} ms`, 'first reply': `${a.reply.toFixed(0)} ms`, ratio: `${(a.reply / b.reply).toFixed(2)}×` };
        if (pairs.some(([, other, otherBare]) => otherBare === bare && pairs.findIndex((x) => x[1] === other) < pairs.findIndex((x) => x[1] === amender))) return [row];
        return [{ runtime, start: bare.replace(/^[a-z]+: /, ''), ready: `${b.ready.toFixed(0)} ms`, 'first reply': `${b.reply.toFixed(0)} ms`, ratio: '1.00×' }, row];
      }),
    );
    table(
      'Bundles measured (built with the 50 policies; bytes loaded at start)',
      sizes.map((s) => ({ target: s.target, bytes: `${(s.bytes / 1024).toFixed(0)} KiB`, gzip: `${(s.gzip / 1024).toFixed(0)} KiB`, 'loaded on demand': s.lazyChunkBytes ? `${(s.lazyChunkBytes / 1024).toFixed(0)} KiB` : '-' })),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
