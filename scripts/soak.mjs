#!/usr/bin/env node
/**
 * `npm run soak [-- --seconds 60 --concurrency 8 --hostile 0.25 --reload-seconds 5 --tenants 1]`
 *
 * Starts the built Node server (dist/node/main.js) on a loopback port with the bundled example policies
 * plus hostile ones, sends it a mix of normal and hostile reviews for a bounded time while a policy file
 * is rewritten and SIGHUP is sent every few seconds, probes /healthz on its own connection the whole
 * time, and prints: errors (anything but the designed answers; must be 0), latency percentiles per
 * kind of review, /healthz latency while hostile reviews were in flight, and the server's RSS over time.
 * Exits 1 when there was an error. Not part of `npm test` (it is a soak, not a test).
 *
 * With `--tenants 1` the server serves two clusters from the same policies: the clients send their mix to
 * cluster `noisy`, and one more client sends a normal review every 50 ms to cluster `quiet`, whose
 * latencies are the `quiet` row: what one cluster's hostile reviews cost another (the review pool's
 * fairness and spare worker, src/adapters/pool).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SERVER = join(ROOT, 'dist/node/main.js');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} takes a number, got ${process.argv[i + 1]}`);
  return value;
}

const SECONDS = option('seconds', Number(process.env.AMENDER_SOAK_SECONDS ?? 60));
const CONCURRENCY = Math.max(1, Math.floor(option('concurrency', 8)));
const HOSTILE_RATIO = Math.min(1, option('hostile', 0.25));
const RELOAD_SECONDS = option('reload-seconds', 5);
const DEADLINE_MS = Math.floor(option('deadline-ms', 2000));
const TENANTS = option('tenants', 0) > 0;
const SECRET = 'soak-cluster-secret';
/** The review path of the clients' mix, and of the quiet cluster's client (--tenants). */
const MIX_PATH = TENANTS ? '/clusters/noisy/mutate' : '/mutate';
const QUIET_PATH = '/clusters/quiet/mutate';

// ---------------------------------------------------------------------------------------------------
// Policies: the bundled examples, a policy whose version changes on every reload, and hostile ones that
// only match Pods labelled `soak/hostile: <kind>`.

const mapPolicy = (name, label, failurePolicy, expression) => `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: '${expression}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec:
  policyName: ${name}
  matchResources:
    objectSelector: {matchLabels: {soak/hostile: ${label}}}
`;

const chainedReplace = `[JSONPatch{op: "add", path: "/metadata/annotations", value: {"grown": "a"${'.replace("a", "aaaaaaaaaa")'.repeat(9)}}}]`;

const doublingContext = Array.from({ length: 27 }, (_, i) =>
  i === 0
    ? `        - name: v0\n          variable: {jmesPath: "[request.object.metadata.name]"}`
    : `        - name: v${i}\n          variable: {jmesPath: "[v${i - 1}, v${i - 1}][]"}`,
).join('\n');

const kyvernoPolicy = (name, label, failurePolicy, body) => `
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  failurePolicy: ${failurePolicy}
  rules:
    - name: ${name}
      match:
        any:
          - resources:
              kinds: [Pod]
              selector: {matchLabels: {soak/hostile: ${label}}}
${body}
`;

const HOSTILE_POLICIES = {
  'hostile-cel.yaml': mapPolicy('soak-cel-growth', 'cel', 'Ignore', chainedReplace),
  'hostile-cel-fail.yaml': mapPolicy('soak-cel-growth-fail', 'cel-fail', 'Fail', chainedReplace),
  'hostile-jmespath.yaml': kyvernoPolicy(
    'soak-jmespath-doubling',
    'jmespath',
    'Ignore',
    `      context:\n${doublingContext}\n      mutate:\n        patchStrategicMerge:\n          metadata:\n            annotations:\n              doubled: "{{ length(v26) }}"`,
  ),
  'hostile-subst.yaml': kyvernoPolicy(
    'soak-resubstitution',
    'subst',
    'Ignore',
    `      mutate:\n        patchStrategicMerge:\n          metadata:\n            annotations:\n              owner-copy: "owner-{{ request.object.metadata.annotations.owner }}"`,
  ),
  'hostile-foreach.yaml': kyvernoPolicy(
    'soak-foreach',
    'foreach',
    'Ignore',
    `      mutate:\n        foreach:\n          - list: request.object.spec.containers\n            patchStrategicMerge:\n              spec:\n                containers:\n                  - name: "{{ element.name }}"\n                    env: [{name: SOAK, value: "1"}]`,
  ),
};

const generationPolicy = (generation) => `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: soak-generation}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{metadata: Object.metadata{labels: {"soak/generation": "${generation}"}}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: soak-generation}
spec: {policyName: soak-generation}
`;

// ---------------------------------------------------------------------------------------------------
// Reviews.

const baseReview = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/reviews/pod-create.json'), 'utf8'));
let uidCounter = 0;

function review(kind) {
  const r = structuredClone(baseReview);
  r.request.uid = `soak-${++uidCounter}`;
  const meta = r.request.object.metadata;
  if (kind !== 'normal') meta.labels['soak/hostile'] = kind;
  if (kind === 'subst') {
    // Each annotation's text refers to the next one twice: substituting resolved text again would double
    // the work per level.
    meta.annotations = { owner: '{{ request.object.metadata.annotations.a0 }}{{ request.object.metadata.annotations.a0 }}' };
    for (let i = 0; i < 20; i++) {
      meta.annotations[`a${i}`] = `{{ request.object.metadata.annotations.a${i + 1} }}{{ request.object.metadata.annotations.a${i + 1} }}`;
    }
  }
  if (kind === 'foreach') {
    const template = r.request.object.spec.containers[0];
    r.request.object.spec.containers = Array.from({ length: 2000 }, (_, i) => ({ ...template, name: `c${i}` }));
  }
  return JSON.stringify(r);
}

/** What counts as the designed answer for each kind of review. */
function designed(kind, status, body) {
  if (status !== 200) return `HTTP ${status}: ${String(body?.message ?? '').slice(0, 120)}`;
  const response = body?.response;
  if (!response || response.uid === undefined) return 'no response';
  if (kind === 'cel-fail') return response.allowed === false ? undefined : 'expected a denial (failurePolicy Fail)';
  if (response.allowed !== true) return `denied: ${response.status?.message}`;
  if (kind === 'normal' && response.patchType !== 'JSONPatch') return 'normal review not patched';
  return undefined;
}

const KINDS_HOSTILE = ['cel', 'cel-fail', 'jmespath', 'subst', 'foreach'];

// ---------------------------------------------------------------------------------------------------

function post(agent, port, path, text) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), authorization: `Bearer ${SECRET}` }, timeout: 30_000 },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          let body;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode, body, ms: performance.now() - started });
        });
        res.on('error', (err) => resolve({ status: 0, error: err.message, ms: performance.now() - started }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('client timeout (30 s)')));
    req.on('error', (err) => resolve({ status: 0, error: err.message, ms: performance.now() - started }));
    req.end(text);
  });
}

function get(agent, port, path) {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request({ host: '127.0.0.1', port, path, agent, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', (err) => resolve({ status: 0, error: err.message, ms: performance.now() - started }));
    req.end();
  });
}

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Clusters `noisy` and `quiet`, each with the policies of `dir` and the soak's secret. */
function tenantsEnv(dir) {
  const hash = `sha256:${createHash('sha256').update(SECRET).digest('hex')}`;
  const env = { AMENDER_CLUSTERS: 'noisy,quiet' };
  for (const name of ['NOISY', 'QUIET']) {
    env[`AMENDER_CLUSTER_${name}_SOURCES`] = `file://${dir}`;
    env[`AMENDER_CLUSTER_${name}_SECRET_HASHES`] = hash;
  }
  return env;
}

function startServer(dir) {
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      PORT: '0',
      AMENDER_HOST: '127.0.0.1',
      AMENDER_POLICY_SOURCES: `file://${dir}`,
      AMENDER_REFRESH_SECONDS: '0',
      AMENDER_REVIEW_DEADLINE_MS: String(DEADLINE_MS),
      AMENDER_LOG_LEVEL: 'info',
      ...(TENANTS ? tenantsEnv(dir) : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk) => {
      buffered += chunk;
      for (const line of buffered.split('\n').slice(0, -1)) {
        try {
          const record = JSON.parse(line);
          if (record.msg === 'listening') {
            child.stdout.off('data', onData);
            child.stdout.resume();
            resolve({ child, port: Number(new URL(record.url).port) });
          }
        } catch {
          /* not a log line */
        }
      }
      buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${stderr}`)));
  });
}

async function main() {
  try {
    readFileSync(SERVER);
  } catch {
    throw new Error(`${SERVER} is missing: run \`npm run build\` first`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'amender-soak-'));
  cpSync(join(ROOT, 'policies'), dir, { recursive: true, filter: (src) => !src.includes('/tests') });
  for (const [file, text] of Object.entries(HOSTILE_POLICIES)) writeFileSync(join(dir, file), text);
  let generation = 1;
  writeFileSync(join(dir, 'generation.yaml'), generationPolicy(generation));

  const { child, port } = await startServer(dir);
  // The server listens at once and answers 503 until its policy set has loaded: start when it is ready.
  const probe = new Agent({ keepAlive: false });
  for (let tries = 0; (await get(probe, port, '/readyz')).status !== 200; tries++) {
    if (tries > 300) throw new Error('the server did not become ready within 30 s');
    await new Promise((res) => setTimeout(res, 100));
  }
  console.log(`# soak: ${SECONDS}s, ${CONCURRENCY} clients, ${Math.round(HOSTILE_RATIO * 100)}% hostile, SIGHUP every ${RELOAD_SECONDS}s, deadline ${DEADLINE_MS} ms, ${TENANTS ? 'clusters noisy (the clients) and quiet (a review every 50 ms)' : 'the default set'}, pid ${child.pid}, port ${port}`);

  const until = performance.now() + SECONDS * 1000;
  const latencies = new Map();
  const errors = [];
  let hostileInFlight = 0;
  let reloads = 0;
  const healthDuringHostile = [];
  const healthAll = [];
  const rss = [];

  const record = (kind, label, r) => {
    const why = r.error ?? designed(kind, r.status, r.body);
    if (why) errors.push(`${label}: ${why}`);
    if (!latencies.has(label)) latencies.set(label, []);
    latencies.get(label).push(r.ms);
  };

  const client = async (n) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let i = n;
    while (performance.now() < until) {
      const hostile = Math.random() < HOSTILE_RATIO;
      const kind = hostile ? KINDS_HOSTILE[i++ % KINDS_HOSTILE.length] : 'normal';
      if (hostile) hostileInFlight++;
      const r = await post(agent, port, MIX_PATH, review(kind));
      if (hostile) hostileInFlight--;
      record(kind, kind, r);
    }
    agent.destroy();
  };

  const quietClient = async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    while (performance.now() < until) {
      record('normal', 'quiet', await post(agent, port, QUIET_PATH, review('normal')));
      await new Promise((res) => setTimeout(res, 50));
    }
    agent.destroy();
  };

  const prober = async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    while (performance.now() < until) {
      const busy = hostileInFlight > 0;
      const r = await get(agent, port, '/healthz');
      if (r.status !== 200) errors.push(`/healthz: ${r.error ?? `HTTP ${r.status}`}`);
      healthAll.push(r.ms);
      if (busy) healthDuringHostile.push(r.ms);
      await new Promise((res) => setTimeout(res, 25));
    }
    agent.destroy();
  };

  const started = performance.now();
  const sampler = setInterval(() => rss.push([Math.round((performance.now() - started) / 1000), rssMiB(child.pid)]), 1000);
  const reloader = RELOAD_SECONDS > 0
    ? setInterval(() => {
        writeFileSync(join(dir, 'generation.yaml'), generationPolicy(++generation));
        child.kill('SIGHUP');
        reloads++;
      }, RELOAD_SECONDS * 1000)
    : undefined;

  await Promise.all([...Array.from({ length: CONCURRENCY }, (_, n) => client(n)), prober(), ...(TENANTS ? [quietClient()] : [])]);
  clearInterval(sampler);
  clearInterval(reloader);

  const exited = new Promise((res) => child.once('exit', (code, signal) => res(code ?? signal)));
  child.kill('SIGTERM');
  const exitCode = await Promise.race([exited, new Promise((res) => setTimeout(() => res('still running after 30 s'), 30_000))]);
  if (exitCode !== 0) {
    errors.push(`server exit after SIGTERM: ${exitCode}`);
    child.kill('SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });

  const fmt = (v) => (Number.isFinite(v) ? v.toFixed(1) : '-');
  let total = 0;
  console.log('\nkind        reviews   p50 ms   p99 ms   max ms');
  for (const [kind, values] of [...latencies].sort()) {
    total += values.length;
    console.log(`${kind.padEnd(10)} ${String(values.length).padStart(8)} ${fmt(percentile(values, 50)).padStart(8)} ${fmt(percentile(values, 99)).padStart(8)} ${fmt(Math.max(...values)).padStart(8)}`);
  }
  const all = [...latencies.values()].flat();
  console.log(`all        ${String(total).padStart(8)} ${fmt(percentile(all, 50)).padStart(8)} ${fmt(percentile(all, 99)).padStart(8)} ${fmt(Math.max(...all)).padStart(8)}`);
  console.log(`\n/healthz: ${healthAll.length} probes, p50 ${fmt(percentile(healthAll, 50))} ms, p99 ${fmt(percentile(healthAll, 99))} ms, max ${fmt(Math.max(...healthAll))} ms`);
  console.log(`/healthz while hostile reviews were in flight: ${healthDuringHostile.length} probes, p50 ${fmt(percentile(healthDuringHostile, 50))} ms, p99 ${fmt(percentile(healthDuringHostile, 99))} ms, max ${fmt(Math.max(...healthDuringHostile))} ms`);
  console.log(`reloads (SIGHUP): ${reloads}; throughput ${(total / SECONDS).toFixed(0)} reviews/s`);
  const step = Math.max(1, Math.ceil(rss.length / 12));
  console.log(`RSS MiB over time (s:MiB): ${rss.filter((_, i) => i % step === 0 || i === rss.length - 1).map(([s, m]) => `${s}:${fmt(m)}`).join('  ')}`);
  const byWhy = new Map();
  for (const e of errors) byWhy.set(e, (byWhy.get(e) ?? 0) + 1);
  console.log(`\nerrors: ${errors.length}${errors.length ? '' : ' (designed denials excluded)'}`);
  for (const [why, n] of [...byWhy].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${n} × ${why}`);
  process.exit(errors.length === 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(`soak: ${err.message}`);
  process.exit(2);
});
