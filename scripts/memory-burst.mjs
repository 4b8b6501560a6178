/**
 * `node scripts/memory-burst.mjs [--reviews 64] [--limit-mb 512] [--containers 25700] [--workers 2]` (after
 * `npm run build`, as root on Linux): what a burst of large reviews sent at once does to the Node server in a
 * container's memory limit (README, Isolation).
 *
 * Puts dist/node/main.js in a memory cgroup of `--limit-mb` (cgroup v2 when the memory controller is
 * there, else v1), with one policy set (a MutatingAdmissionPolicy that labels Pods), sends `--reviews`
 * reviews of a Pod with `--containers` containers (25,700: 6.1 MiB) at once, and prints how they were
 * answered, the cgroup's peak memory, and whether the kernel killed the server. Extra environment
 * variables (AMENDER_BODY_BUDGET_MB, AMENDER_WORKER_HEAP_MB...) pass through to the server.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { option, ROOT, startBuiltServer } from './built-server.mjs';

const REVIEWS = option('reviews', 64);
const LIMIT_MB = option('limit-mb', 512);
const CONTAINERS = option('containers', 25_700);
const WORKERS = option('workers', 2);

/** A memory cgroup to run the server in: its folder, the file its limit goes to, the one with its peak. */
function makeCgroup() {
  const name = `amender-burst-${process.pid}`;
  const v2 = '/sys/fs/cgroup';
  if (existsSync(join(v2, 'cgroup.controllers')) && readFileSync(join(v2, 'cgroup.controllers'), 'utf8').includes('memory')) {
    const dir = join(v2, name);
    mkdirSync(dir);
    return { dir, limit: join(dir, 'memory.max'), peak: join(dir, 'memory.peak'), events: join(dir, 'memory.events') };
  }
  const v1 = '/sys/fs/cgroup/memory';
  if (existsSync(v1)) {
    const dir = join(v1, name);
    mkdirSync(dir);
    return { dir, limit: join(dir, 'memory.limit_in_bytes'), peak: join(dir, 'memory.max_usage_in_bytes'), events: join(dir, 'memory.oom_control') };
  }
  throw new Error('no memory cgroup controller here (cgroup v2 with memory, or v1 /sys/fs/cgroup/memory)');
}

let cgroup;
try {
  cgroup = makeCgroup();
  writeFileSync(cgroup.limit, String(LIMIT_MB * 2 ** 20));
} catch (err) {
  console.error(`cannot make a memory cgroup (run as root on Linux): ${err.message}`);
  process.exit(1);
}

const policies = mkdtempSync(join(tmpdir(), 'amender-burst-'));
writeFileSync(
  join(policies, 'policies.yaml'),
  `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"burst": "yes"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label}
spec: {policyName: label}
`,
);
const review = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8'));
const container = review.request.object.spec.containers[0];
review.request.object.spec.containers = Array.from({ length: CONTAINERS }, (_, i) => ({ ...container, name: `c${i}` }));
const body = JSON.stringify(review);

const env = { AMENDER_POLICY_SOURCES: `file://${policies}`, AMENDER_WORKERS: String(WORKERS), AMENDER_REFRESH_SECONDS: '0' };
// The shell joins the cgroup, then becomes the server: everything the server starts is in it.
const joinCgroup = (main) => ['/bin/sh', ['-c', `echo $$ > ${cgroup.dir}/cgroup.procs && exec "$0" "$1"`, process.execPath, main]];
let server;
try {
  server = await startBuiltServer(env, joinCgroup);
  const { lines } = server;
  const listening = lines.find((l) => l.msg === 'listening');
  const pool = lines.find((l) => l.msg === 'review workers');
  console.log(`${REVIEWS} reviews of ${(body.length / 2 ** 20).toFixed(1)} MiB at once, memory limit ${LIMIT_MB} MiB; worker heap ${pool?.heapMb} MB, body budget ${listening.bodyBudgetMb ?? '(none)'} MiB`);
  const sent = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: REVIEWS }, async () => {
      try {
        const reply = await fetch(`${listening.url}/mutate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(30_000) });
        const text = await reply.text();
        const at = Math.round(performance.now() - sent);
        if (reply.status !== 200) return { what: `${reply.status}`, at };
        return { what: text.includes('"patch"') ? '200 patched' : '200 denied (failure policy)', at };
      } catch (err) {
        return { what: `no answer (${err.cause?.code ?? err.message})`, at: Math.round(performance.now() - sent) };
      }
    }),
  );
  const counts = new Map();
  for (const { what, at } of outcomes) {
    const entry = counts.get(what) ?? { count: 0, last: 0 };
    entry.count++;
    entry.last = Math.max(entry.last, at);
    counts.set(what, entry);
  }
  for (const [what, { count, last }] of counts) console.log(`  ${String(count).padStart(4)}  ${what} (the last after ${last} ms)`);
  // The server's own time per request (from its head to its answer): the client takes a while to send
  // so many large bodies, and that time is not the server's.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const served = lines.filter((l) => l.msg === 'request' && l.path === '/mutate').map((l) => l.durationMs);
  if (served.length > 0) console.log(`server time per review: longest ${Math.round(Math.max(...served))} ms (${served.length} logged)`);
  const peak = Number(readFileSync(cgroup.peak, 'utf8'));
  // Both cgroup versions count the processes the kernel killed for memory as `oom_kill N`.
  const kills = Number(/oom_kill (\d+)/.exec(readFileSync(cgroup.events, 'utf8'))?.[1] ?? NaN);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const state = server.child.exitCode === null && server.child.signalCode === null ? 'still running' : `ended (${server.child.signalCode ?? server.child.exitCode})`;
  console.log(`peak memory ${Math.round(peak / 2 ** 20)} MiB; killed by the kernel for memory: ${Number.isNaN(kills) ? 'unknown' : kills}; server ${state}`);
} finally {
  const child = server?.child;
  if (child) {
    child.kill();
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)));
  }
  rmSync(policies, { recursive: true, force: true });
  try {
    rmdirSync(cgroup.dir);
  } catch {
    // the kernel removes the last task a moment later; a leftover empty cgroup is harmless
  }
}
