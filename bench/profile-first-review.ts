/**
 * Where a Lambda cold start spends its CPU: `node --import ./bench/loader/register.mjs
 * bench/profile-first-review.ts [starts] [node]` builds dist/lambda with the 50 policies of
 * bench/fixtures/policies-50 (as `npm run bench -- 60` does, compile cache included), starts it `starts`
 * times (default 5) under Node `node` (default 24; 20 for the Node running the bench) with `--cpu-prof`,
 * answers one AdmissionReview each time, and prints, as medians over the starts, the CPU time of the steps named in STEPS (inclusive: a step's callees
 * count in it), then the self time by source folder and by function. Positions are resolved through the bundle's source
 * maps. Not part of `npm run bench`: profiling slows what it measures (each figure is inflated, the
 * proportions are what to read), and the figures of bench/JOURNAL.md come from it.
 */
import { functionUrlEvent } from './lambda-event.js';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pod4k } from './fixtures.js';
import { benchNodes } from './nodes.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STARTS = Math.max(1, Number(process.argv[2] ?? 5));
/** The Node whose start is profiled: 24 (what deployments run) unless named, e.g. `20`. */
const NODE_MAJOR = Number(process.argv[3] ?? 24);
/** A profiler stall (the process descheduled on a loaded machine) is not CPU: one sample counts at most this. */
const MAX_SAMPLE_MS = 0.5;

/** Steps of a start, by the function (original name and source) that does them. */
const STEPS: [label: string, name: string, source: string][] = [
  ['load: policy set built (bundled set)', 'buildPolicySet', 'src/policyset/build.ts'],
  ['load: MutatingAdmissionPolicies decoded and validated', 'loadPolicy', 'src/map/load.ts'],
  ['load: Kyverno policies compiled', 'compileKyvernoPolicy', 'src/kyverno/compile.ts'],
  ['review: Lambda event → request (a LambdaRequest: no undici)', 'eventToRequest', 'src/adapters/lambda-event.ts'],
  ['review: Hono app', 'fetch', 'node_modules/hono/dist/hono-base.js'],
  ['review: engine evaluate', 'evaluate', 'src/engine/evaluate.ts'],
  ['review: MutatingAdmissionPolicies compiled on first use', 'compilePolicy', 'src/map/compile.ts'],
  ['review: CEL environments built', 'kubernetesEnvs', 'src/cel/k8s/environment.ts'],
  ['review: CEL parse', 'parse', 'src/cel/engine/parser.ts'],
  ['review: CEL type check', 'check', 'src/cel/engine/checker.ts'],
  ['review: CEL plan', 'plan', 'src/cel/engine/planner.ts'],
  ['review: Kyverno rules run', 'runKyvernoPolicies', 'src/kyverno/run.ts'],
  ['review: server-side apply of mutations', 'applyConfiguration', 'src/schema/ssa/apply.ts'],
  ['garbage collector', '(garbage collector)', ''],
];

const HARNESS = `
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const { handler } = await import(pathToFileURL(process.argv[2]).href);
const result = await handler(JSON.parse(readFileSync(process.argv[3], 'utf8')), { getRemainingTimeInMillis: () => 10000 });
if (result.statusCode !== 200 || !JSON.parse(result.body).response?.patch) throw new Error('unexpected reply: ' + result.body);
`;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface Profile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Resolves call frames of the bundle through its source maps to `name source`. */
function frameResolver(bundleDir: string): (cf: CallFrame) => { name: string; source: string } {
  const maps = new Map<string, SourceMap | undefined>();
  return (cf) => {
    // Modules have file URLs; the Lambda engine, compiled by vm.Script (src/adapters/script-cache.ts), its path.
    const path = cf.url.startsWith('file://') ? fileURLToPath(cf.url) : cf.url;
    if (!path.startsWith('/') || !path.includes(bundleDir)) return { name: cf.functionName, source: cf.url.replace(/^.*\//, '') };
    const file = `${path}.map`;
    if (!maps.has(file)) maps.set(file, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : undefined);
    const entry = maps.get(file)?.findEntry(cf.lineNumber, cf.columnNumber) as { name?: string; originalSource?: string } | undefined;
    const source = (entry?.originalSource ?? '').replace(/^.*?\/(src|node_modules)\//, '$1/');
    return { name: entry?.name ?? cf.functionName, source };
  };
}

/** Inclusive CPU ms of each step and self CPU ms by folder and by function, for one profile. */
function analyze(profile: Profile, resolve: ReturnType<typeof frameResolver>): { steps: Map<string, number>; folders: Map<string, number>; functions: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const resolved = new Map<number, { name: string; source: string }>();
  const at = (id: number) => resolved.get(id) ?? resolved.set(id, resolve(byId.get(id)!.callFrame)).get(id)!;
  const steps = new Map<string, number>();
  const folders = new Map<string, number>();
  const functions = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = Math.min((profile.timeDeltas[i + 1] ?? 0) / 1000, MAX_SAMPLE_MS);
    const leaf = at(profile.samples[i]);
    const folder = leaf.source.startsWith('node_modules/') ? leaf.source.split('/').slice(0, 2).join('/') : leaf.source.split('/').slice(0, 3).join('/') || leaf.name || '(anonymous or unmapped: module bodies, esbuild wrappers, V8)';
    folders.set(folder, (folders.get(folder) ?? 0) + ms);
    const fn = `${leaf.name || '(anonymous)'} ${leaf.source}`;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
    const seen = new Set<string>();
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const f = at(id);
      for (const [label, name, source] of STEPS) {
        if (seen.has(label) || f.name !== name || !f.source.endsWith(source)) continue;
        seen.add(label);
        steps.set(label, (steps.get(label) ?? 0) + ms);
      }
    }
  }
  return { steps, folders, functions };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;

async function main(): Promise<void> {
  const node = (await benchNodes()).nodes.find((n) => n.major === NODE_MAJOR);
  if (!node) throw new Error(`no Node ${NODE_MAJOR} here (see scripts/node24.mjs; Node 24 is the one deployments run)`);
  const work = mkdtempSync(join(tmpdir(), 'amender-profile-'));
  try {
    const dist = join(work, 'dist');
    const { buildTargets } = (await import(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href)) as {
      buildTargets(names: string[], options: { policiesDir: string; distDir: string }): Promise<unknown>;
    };
    await buildTargets(['lambda'], { policiesDir: join(ROOT, 'bench/fixtures/policies-50'), distDir: dist });
    const harness = join(work, 'harness.mjs');
    writeFileSync(harness, HARNESS);
    const event = join(work, 'event.json');
    writeFileSync(event, JSON.stringify(functionUrlEvent(JSON.stringify(pod4k()))));
    const resolve = frameResolver(dist);
    const steps = new Map<string, number[]>();
    const folders = new Map<string, number[]>();
    const functions = new Map<string, number[]>();
    for (let i = 0; i < STARTS; i++) {
      const profDir = join(work, `prof-${i}`);
      const run = spawnSync(node.path, ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100', harness, join(dist, 'lambda/index.mjs'), event], {
        env: { PATH: process.env.PATH ?? '', AMENDER_LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      if (run.status !== 0) throw new Error(`start ${i + 1} failed (${run.status ?? run.signal}): ${run.stderr}`);
      const profile = JSON.parse(readFileSync(join(profDir, readdirSync(profDir)[0]), 'utf8')) as Profile;
      const result = analyze(profile, resolve);
      for (const [label] of STEPS) (steps.get(label) ?? steps.set(label, []).get(label)!).push(result.steps.get(label) ?? 0);
      for (const [folder, ms] of result.folders) (folders.get(folder) ?? folders.set(folder, []).get(folder)!).push(ms);
      for (const [fn, ms] of result.functions) (functions.get(fn) ?? functions.set(fn, []).get(fn)!).push(ms);
    }
    const fill = (xs: number[]) => [...xs, ...Array<number>(STARTS - xs.length).fill(0)];
    console.log(`dist/lambda, 50 policies, ${node.label}, ${STARTS} starts under --cpu-prof: CPU ms, medians (profiling inflates them)`);
    for (const [label, xs] of steps) console.log(`${median(xs).toFixed(1).padStart(8)}  ${label}`);
    const top = (title: string, byKey: Map<string, number[]>) => {
      console.log(`\n${title} (top 20)`);
      const ranked = [...byKey].map(([k, xs]) => [k, median(fill(xs))] as const).sort((a, b) => b[1] - a[1]);
      for (const [k, ms] of ranked.slice(0, 20)) console.log(`${ms.toFixed(1).padStart(8)}  ${k}`);
    };
    top('self time by source folder', folders);
    top('self time by function', functions);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
