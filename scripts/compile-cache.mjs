/**
 * Writes the V8 code caches of a built Node bundle (read at start by src/adapters/script-cache.ts): the
 * bundle runs once under the given Node and answers one review, then writes the cache of each script it
 * compiled, as V8 holds it at that moment — the functions the review ran included. The Node server
 * starts twice, answers and is stopped: evaluating in process, its main thread writes the cache of
 * server.cjs as it exits; with one review worker, the worker writes worker.cjs's before its answer. The
 * Lambda handler is initialized, invoked, and writes engine.cjs's. Each file is named for the V8 that
 * wrote it (`engine.cjs.v8-<version>.v8cache`). A bundle that cannot start or answer under that Node
 * fails the build.
 *
 *   node scripts/compile-cache.mjs DIST_TARGET_DIR node|lambda [NODE]   (the Knative image runs this)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { node24Binary } from './node24.mjs';

/** How a code cache file's name ends (src/adapters/script-cache.ts). */
const SCRIPT_CACHE_SUFFIX = '.v8cache';

/** The code cache of `script` for one V8 version, named as src/adapters/script-cache.ts reads it. */
export function scriptCacheFile(script, v8Version) {
  return `${script}.v8-${v8Version.replace(/[^0-9A-Za-z.-]/g, '_')}${SCRIPT_CACHE_SUFFIX}`;
}

/** The V8 version of the Node at `node` (this Node's without asking when it is this one). */
export function v8VersionOf(node) {
  if (node === process.execPath) return process.versions.v8;
  const out = spawnSync(node, ['-p', 'process.versions.v8'], { encoding: 'utf8', timeout: WAIT_MS });
  if (out.status !== 0) throw new Error(`${node} -p process.versions.v8 failed: ${out.error?.message ?? out.stderr}`);
  return out.stdout.trim();
}
/** The scripts of each target whose caches the warm-up writes. */
const SCRIPTS = { node: ['server.cjs', 'worker.cjs'], lambda: ['engine.cjs'] };
const WAIT_MS = 60_000;

/**
 * The Nodes that write the caches, one cache each (a cache serves only the V8 that made it):
 * AMENDER_COMPILE_CACHE_NODE (a path: that Node alone, e.g. the Knative image's; `none`: no cache), else
 * the Node 24 that deployments run (the optional dependency) and the Node running the build, when its V8
 * differs (so that the tests and anyone running the bundles on that Node start from a cache too).
 */
export function compileCacheNodes(env = process.env) {
  const chosen = env.AMENDER_COMPILE_CACHE_NODE;
  if (chosen === 'none') return [];
  if (chosen) return [chosen];
  const node24 = node24Binary();
  if (!node24) return [process.execPath];
  return v8VersionOf(node24) === process.versions.v8 ? [node24] : [node24, process.execPath];
}

/** A Pod CREATE review: the warm-up that has the engine's functions compiled into the cache. */
function sampleReview() {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'warm-up', namespace: 'default', labels: { app: 'warm-up' } },
    spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1.0', resources: {} }] },
  };
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '00000000-0000-4000-8000-00000000c0de',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller' },
      object: pod,
      oldObject: null,
      dryRun: false,
    },
  });
}

function run(node, args, env, onLine) {
  const child = spawn(node, args, { env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  if (onLine) createInterface({ input: child.stdout }).on('line', (line) => onLine(line, child));
  else child.stdout.resume();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit within ${WAIT_MS} ms: ${stderr}`));
    }, WAIT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`exited with ${code ?? signal}: ${stderr.trim()}`));
    });
  });
}

const LAMBDA_WARM_UP = `
const [bundle, body] = process.argv.slice(-2);
const { handler } = await import(bundle);
const host = 'warm-up.lambda-url.us-east-1.on.aws';
const result = await handler({ version: '2.0', routeKey: '$default', rawPath: '/mutate', rawQueryString: '', headers: { host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  requestContext: { domainName: host, http: { method: 'POST', path: '/mutate', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' }, stage: '$default' }, body, isBase64Encoded: false },
  { getRemainingTimeInMillis: () => 10000 });
if (result.statusCode !== 200) throw new Error('the warm-up review was answered ' + result.statusCode + ': ' + result.body);
// The engine's code cache, now that the review has run: it holds what V8 compiled for it.
const { writeScriptCaches } = await import(bundle);
if (writeScriptCaches().length !== 1) throw new Error('the Lambda bundle did not load its engine script');
`;

async function warmLambda(node, dir) {
  const bundle = pathToFileURL(join(dir, 'index.mjs')).href;
  await run(node, ['--input-type=module', '-e', LAMBDA_WARM_UP, bundle, sampleReview()], { AMENDER_LOG_LEVEL: 'error' });
}

/**
 * Two runs: one evaluating in process writes the main thread's cache (so that it holds the review too,
 * for AMENDER_WORKERS=0 and for the reviews the main thread answers itself), one with a review worker
 * writes the worker's.
 */
async function warmNodeServer(node, dir) {
  await warmNodeServerOnce(node, dir, { AMENDER_WORKERS: '0', AMENDER_WRITE_CODE_CACHE: 'main' });
  await warmNodeServerOnce(node, dir, { AMENDER_WORKERS: '1', AMENDER_WRITE_CODE_CACHE: 'worker' });
}

async function warmNodeServerOnce(node, dir, env) {
  let failure;
  let url;
  await run(node, [join(dir, 'main.js')], { PORT: '0', AMENDER_HOST: '127.0.0.1', AMENDER_LOG_LEVEL: 'info', ...env }, (line, child) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.msg === 'listening') url = message.url;
    if (message.msg !== 'policy sets loaded') return;
    void fetch(`${url}/mutate`, { method: 'POST', body: sampleReview(), headers: { 'content-type': 'application/json' } })
      .then(async (res) => {
        if (res.status !== 200) failure = new Error(`the warm-up review was answered ${res.status}: ${await res.text()}`);
      })
      .catch((err) => (failure = err))
      .finally(() => child.kill('SIGTERM'));
  });
  if (failure) throw failure;
}

/**
 * Writes the code caches of the bundle of `target` (`node` or `lambda`) built in `dir`, running `node`;
 * returns the files written (one per script, for that Node's V8).
 */
export async function writeCompileCache({ node, target, dir }) {
  const scripts = SCRIPTS[target];
  try {
    if (!scripts) throw new Error(`no code cache for the ${target} target`);
    const version = v8VersionOf(node);
    const files = scripts.map((script) => join(dir, scriptCacheFile(script, version)));
    for (const file of files) rmSync(file, { force: true });
    if (target === 'lambda') await warmLambda(node, dir);
    else await warmNodeServer(node, dir);
    const missing = files.filter((file) => !existsSync(file));
    if (missing.length) throw new Error(`the warm-up run wrote no cache ${missing.join(', ')}`);
    return files;
  } catch (err) {
    throw new Error(`writing the code cache of ${target} with ${node}: ${err.message}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [dir, target, node = process.execPath] = process.argv.slice(2);
  try {
    await writeCompileCache({ node, target, dir });
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
