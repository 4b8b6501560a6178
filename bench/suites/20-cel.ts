/**
 * The Kubernetes CEL environment against a 4 KB Pod: per expression, the median time to compile
 * (parse + type-check + plan, without the program cache) and to evaluate (a fresh Evaluation, as
 * each admission request gets), with its cel-go cost; then, in fresh Node processes, the cold import
 * of the CEL module and the first compile + evaluate after it (the environment and the libraries'
 * declarations are built on first use, so import time alone would hide that work). Everything runs
 * from an esbuild bundle of src/cel, as deployments ship it (tsx's development transform adds
 * per-closure overhead that production code does not have).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type * as CelModule from '../../src/cel/index.js';
import type { AdmissionInput, CelRole } from '../../src/cel/index.js';
import type { compileUncached as CompileUncached } from '../../src/cel/k8s/compile.js';
import { pod4k } from '../fixtures.js';
import { formatNs, measure, summarize, table } from '../lib.js';

const EXPRESSIONS: [CelRole, string][] = [
  ['matchCondition', "object.metadata.name.startsWith('web-')"],
  ['matchCondition', "has(object.metadata.labels) && 'app' in object.metadata.labels"],
  ['matchCondition', "object.metadata.labels['app'] == 'web' && request.operation == 'CREATE'"],
  ['matchCondition', "object.metadata.namespace in ['kube-system', 'kube-public']"],
  ['matchCondition', "request.userInfo.groups.exists(g, g == 'system:masters')"],
  ['matchCondition', "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))"],
  ['matchCondition', "object.spec.containers.exists(c, has(c.securityContext.privileged) && c.securityContext.privileged)"],
  ['matchCondition', 'object.spec.containers.filter(c, !has(c.resources.limits)).size() == 0'],
  ['matchCondition', "object.spec.containers.all(c, c.image.matches('^[a-z0-9./-]+:[0-9.]+$'))"],
  ['matchCondition', 'object.spec.containers.all(c, c.ports.all(p, p.containerPort > 1024))'],
  ['matchCondition', "object.spec.tolerations.exists(t, t.key == 'node.kubernetes.io/not-ready')"],
  ['matchCondition', "quantity(object.spec.containers[0].resources.limits.memory).isLessThan(quantity('1Gi'))"],
  ['variable', 'object.spec.containers.map(c, c.name)'],
  ['variable', 'object.spec.?nodeSelector.orValue({}).size() == 0'],
  ['jsonPatch', "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/team'), value: object.metadata.labels.team}]"],
  ['applyConfiguration', "Object{metadata: Object.metadata{annotations: {'example.com/mutated': 'true'}}}"],
];

function median(values: number[]): number {
  return summarize(values).median;
}

type Bundle = typeof CelModule & { compileUncached: typeof CompileUncached };

async function bundle(dir: string): Promise<{ file: string; bytes: number }> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
  const file = join(dir, 'cel.mjs');
  const result = await build({
    stdin: {
      contents: "export * from './src/cel/index.ts'; export { compileUncached } from './src/cel/k8s/compile.ts';",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    // As scripts/build.mjs does for Node bundles: CommonJS dependencies (yaml) may require Node built-ins.
    banner: { js: "import { createRequire as __amenderCreateRequire } from 'node:module';\nconst require = __amenderCreateRequire(import.meta.url);" },
    outfile: file,
    metafile: true,
    logLevel: 'silent',
  });
  return { file, bytes: Object.values(result.metafile.outputs)[0].bytes };
}

/** In a fresh process: [import, first compile + evaluate of a matchCondition] in ns, medians of 9 runs. */
function coldStart(file: string): { importNs: number; firstRequestNs: number } {
  const probe = `
const t0 = performance.now();
const cel = await import(${JSON.stringify(file)});
const t1 = performance.now();
const r = cel.compileExpression(${JSON.stringify(EXPRESSIONS[0][1])}, 'matchCondition', { params: false });
const e = r.ok && new cel.Evaluation({ object: { metadata: { name: 'web-1' } } }, { budget: cel.RUNTIME_CEL_COST_BUDGET }).evaluate(r.compiled);
if (!e || !e.ok) throw new Error('first request failed');
console.log(JSON.stringify([t1 - t0, performance.now() - t1]));`;
  const imports: number[] = [];
  const firsts: number[] = [];
  for (let i = 0; i < 9; i++) {
    const p = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    if (p.status !== 0) throw new Error(p.stderr);
    const [imp, first] = JSON.parse(p.stdout.trim()) as [number, number];
    imports.push(imp * 1e6);
    firsts.push(first * 1e6);
  }
  return { importNs: median(imports), firstRequestNs: median(firsts) };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'amender-cel-'));
  try {
    const { file, bytes } = await bundle(dir);
    const cel = (await import(file)) as Bundle;
    const review = pod4k();
    const { object, oldObject, ...request } = review.request;
    const input: AdmissionInput = { object, oldObject, request };
    const rows: Record<string, string | number>[] = [];
    const compileMedians: number[] = [];
    const evalMedians: number[] = [];
    for (const [role, expr] of EXPRESSIONS) {
      const scope = { params: false };
      const first = cel.compileExpression(expr, role, scope);
      if (!first.ok) throw new Error(`${expr}: ${first.message}`);
      const compiled = first.compiled;
      const check = new cel.Evaluation(input, { budget: cel.RUNTIME_CEL_COST_BUDGET }).evaluate(compiled);
      if (!check.ok) throw new Error(`${expr}: ${check.message}`);
      const c = measure(() => cel.compileUncached(expr, role, scope), { minMillis: 200 });
      const e = measure(() => new cel.Evaluation(input, { budget: cel.RUNTIME_CEL_COST_BUDGET }).evaluate(compiled), { minMillis: 200 });
      compileMedians.push(c.median);
      evalMedians.push(e.median);
      rows.push({ role, expression: expr.length > 70 ? `${expr.slice(0, 67)}...` : expr, compile: formatNs(c.median), evaluate: formatNs(e.median), cost: check.cost });
    }
    table('cel: compile (uncached) and evaluate against a 4 KB Pod, medians', rows);
    const cold = coldStart(file);
    table('cel: summary', [
      {
        'median compile': formatNs(median(compileMedians)),
        'median evaluate': formatNs(median(evalMedians)),
        'slowest compile': formatNs(Math.max(...compileMedians)),
        'slowest evaluate': formatNs(Math.max(...evalMedians)),
        'cold import': formatNs(cold.importNs),
        'then first compile+eval': formatNs(cold.firstRequestNs),
        'bundle bytes': bytes,
      },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
