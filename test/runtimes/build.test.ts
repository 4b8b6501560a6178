/**
 * The build of the runtime bundles: sizes within budget, the bundled set validated (an invalid policy
 * fails the build with its message), no Node built-in in the Workers bundle, and the YAML parser the Node
 * bundles take.
 */
import { build as esbuild, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { labelPolicy } from '../sources/helpers.js';
import { ensureBuilt, ROOT, WORKERS_BUNDLE } from './helpers.js';

interface BuildScript {
  buildTargets(names: string[], options?: { policiesDir?: string; distDir?: string }): Promise<{ target: string; bytes: number; gzip: number }[]>;
  TARGETS: { name: string; options?: { plugins?: Plugin[] } }[];
}
const script = () => import(pathToFileURL(join(ROOT, 'scripts/build.mjs')).href) as Promise<BuildScript>;

/** Size budgets (bytes loaded at cold start). Workers' free plan takes 3 MB compressed; Lambda 50 MB zipped. */
const GZIP_BUDGET: Record<string, number> = {
  workers: 1024 * 1024,
  lambda: 1024 * 1024,
  node: 1024 * 1024,
};

beforeAll(() => ensureBuilt());

const temporary: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('bundle sizes', () => {
  it('every runtime bundle is within its budget (dist/sizes.json), schema data included', () => {
    const sizes = JSON.parse(readFileSync(join(ROOT, 'dist/sizes.json'), 'utf8')) as { target: string; bytes: number; gzip: number }[];
    for (const [target, budget] of Object.entries(GZIP_BUDGET)) {
      const entry = sizes.find((s) => s.target === target);
      expect(entry, `${target} in dist/sizes.json`).toBeDefined();
      expect(entry!.gzip, `${target} gzip bytes`).toBeLessThanOrEqual(budget);
    }
    // The report describes the bundle on disk.
    const workers = readFileSync(WORKERS_BUNDLE);
    expect(sizes.find((s) => s.target === 'workers')).toMatchObject({ bytes: workers.length, gzip: gzipSync(workers).length });
    // The schema data is in it (the merge facts of built-in kinds).
    expect(workers.toString('utf8').includes('core.v1.PodSpec')).toBe(true);
  });
});

describe('the YAML parser in the Node bundles', () => {
  it("is the yaml package's browser build: no process.env read per token (LOG_TOKENS) or per document (LOG_STREAM)", () => {
    const cli = join(ROOT, 'dist/cli/amender.js');
    if (!existsSync(cli)) execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), 'cli'], { cwd: ROOT, stdio: 'ignore' });
    for (const file of ['dist/node/server.cjs', 'dist/node/worker.cjs', 'dist/lambda/engine.cjs', 'dist/cli/amender.js']) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      // The parser is there (its error class), without the Node build's debug switches.
      expect(text.includes('YAMLParseError'), `${file} holds the YAML parser`).toBe(true);
      expect(text.includes('LOG_TOKENS') || text.includes('LOG_STREAM'), `${file} reads LOG_TOKENS/LOG_STREAM`).toBe(false);
    }
  });
});

describe('the bundled policy set at build time', () => {
  it('embeds the documents already parsed: no YAML text of the policies in the bundle', () => {
    const text = readFileSync(WORKERS_BUNDLE, 'utf8');
    // (boolean checks: a failing toContain would print the whole 1.5 MB bundle)
    expect(text.includes('amender.policy-bundle/v1')).toBe(true);
    expect(text.includes('inject-log-shipper')).toBe(true);
    expect(text.includes('kind: MutatingAdmissionPolicy')).toBe(false);
  });

  it('fails the build of a runtime with the message of an invalid policy', async () => {
    const policies = tempDir('amender-bad-policies-');
    writeFileSync(join(policies, 'good.yaml'), labelPolicy('good', 'team', 'x'));
    writeFileSync(join(policies, 'bad.yaml'), labelPolicy('no-reinvocation', 'team', 'x').replace('  reinvocationPolicy: Never\n', ''));
    const { buildTargets } = await script();
    await expect(buildTargets(['workers'], { policiesDir: policies, distDir: tempDir('amender-dist-') })).rejects.toThrow(
      /invalid bundled policies in .*\nbundled:bad\.yaml#0 MutatingAdmissionPolicy\/no-reinvocation: spec\.reinvocationPolicy: Required value$/,
    );
  });

  it('embeds another folder when told (what the cold-start benchmark builds)', async () => {
    const policies = tempDir('amender-policies-');
    writeFileSync(join(policies, 'one.yaml'), labelPolicy('only-one', 'team', 'x'));
    const dist = tempDir('amender-dist-');
    const { buildTargets } = await script();
    const [report] = await buildTargets(['workers'], { policiesDir: policies, distDir: dist });
    expect(report.target).toBe('workers');
    const text = readFileSync(join(dist, 'workers/index.js'), 'utf8');
    expect(text.includes('only-one')).toBe(true);
    expect(text.includes('inject-log-shipper')).toBe(false);
  });
});

describe('the Workers target refuses Node built-ins', () => {
  it('fails on node:* and bare built-in imports, naming the importer', async () => {
    const { TARGETS } = await script();
    const plugins = TARGETS.find((t) => t.name === 'workers')!.options!.plugins!;
    const dir = tempDir('amender-builtin-');
    for (const [file, source] of [
      ['prefixed.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n"],
      ['bare.ts', "import { createHash } from 'crypto';\nexport const x = createHash;\n"],
      ['subpath.ts', "import { setTimeout } from 'timers/promises';\nexport const x = setTimeout;\n"],
    ] as const) {
      writeFileSync(join(dir, file), source);
      const failure = await esbuild({ entryPoints: [join(dir, file)], bundle: true, write: false, platform: 'browser', format: 'esm', logLevel: 'silent', plugins }).then(
        () => undefined,
        (err: { errors: { text: string }[] }) => err.errors.map((e) => e.text).join('\n'),
      );
      expect(failure, file).toMatch(/is a Node-only module \(imported by .*\); the Workers bundle cannot contain one/);
    }
    writeFileSync(join(dir, 'clean.ts'), 'export const x = crypto.subtle;\n');
    await expect(esbuild({ entryPoints: [join(dir, 'clean.ts')], bundle: true, write: false, platform: 'browser', format: 'esm', logLevel: 'silent', plugins })).resolves.toBeDefined();
  });
});
