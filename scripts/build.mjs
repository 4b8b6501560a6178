#!/usr/bin/env node
/**
 * `npm run build`: one esbuild bundle per target in dist/<target>/, then a size report. Adding a
 * runtime (Lambda, Workers, ...) is one entry in TARGETS. `node scripts/build.mjs node cli` builds only
 * the named targets.
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { compileCacheNodes, writeCompileCache } from './compile-cache.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Deployments run Node 24 (infra/lambda nodejs24.x, the Knative image); the bundles also load on Node 20
 * (the tests, the CLI on older hosts): esbuild lowers whatever one of them lacks. Today's sources need no
 * lowering for either, and the output is byte for byte the one of a `node24` target.
 */
export const NODE_TARGETS = ['node24', 'node20'];

/**
 * The wrapper of a script that src/adapters/script-cache.ts compiles (its SCRIPT_WRAPPER_OPEN and _CLOSE): Node's
 * CommonJS function, written into the file so that the loader compiles the text as read, without joining it
 * to the wrapper first (a second copy of the megabyte at every cold start).
 */
const SCRIPT_WRAPPER = { open: '(function (exports, require, module, __filename, __dirname) {', close: '\n})' };

/** Lets bundled CommonJS dependencies `require` Node built-ins from an ESM bundle. */
const NODE_REQUIRE_BANNER = "import { createRequire as __amenderCreateRequire } from 'node:module';\nconst require = __amenderCreateRequire(import.meta.url);";

/**
 * Node bundles take the `yaml` package's browser build, the one the Workers bundle takes: the same parser
 * and composer without its Node build's `process.env.LOG_TOKENS` read per token and `LOG_STREAM` read per
 * document (a call into C++ each: a quarter of the CPU of parsing a large policy file, bench/JOURNAL.md, stop 60).
 * Our YAML reads never use what else differs (its own `!!binary` tag, warnings through `process.emitWarning`).
 */
const NODE_ALIAS = { yaml: './node_modules/yaml/browser/index.js' };
const aliasFor = (platform) => (platform === 'node' ? { alias: NODE_ALIAS } : {});

/** Fails the build when anything imports a Node built-in: the Workers bundle must run without nodejs_compat. */
const NODE_BUILTIN = new RegExp(`^(node:.*|(${builtinModules.filter((m) => !m.startsWith('_')).map((m) => m.replace(/[/.]/g, '\\$&')).join('|')})(/.*)?)$`);
const refuseNodeBuiltins = {
  name: 'refuse-node-builtins',
  setup(b) {
    b.onResolve({ filter: NODE_BUILTIN }, (args) => ({
      errors: [{ text: `"${args.path}" is a Node-only module (imported by ${relative(root, args.importer) || args.importer}); the Workers bundle cannot contain one` }],
    }));
  },
};

/**
 * Imports of the packages in `apart` (name → file), static or dynamic, become `require('./file')` of a
 * file built on its own (a dynamic `import()` would need an ES module loader inside a `vm.Script`).
 */
function requireApart(apart) {
  const escape = (text) => text.replace(/[/.@-]/g, '\\$&');
  const names = Object.keys(apart);
  const files = Object.values(apart).map((file) => `./${file}`);
  return {
    name: 'require-apart',
    setup(b) {
      if (names.length === 0) return;
      b.onResolve({ filter: new RegExp(`^(${names.map(escape).join('|')})$`) }, (args) => ({ path: args.path, namespace: 'apart' }));
      b.onLoad({ filter: /.*/, namespace: 'apart' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(`./${apart[args.path]}`)});`, loader: 'js' }));
      b.onResolve({ filter: new RegExp(`^(${files.map(escape).join('|')})$`) }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/**
 * @type {{ name: string, entry: string, outfile: string, platform: 'node' | 'neutral' | 'browser', options?: import('esbuild').BuildOptions,
 *   policies?: boolean, scripts?: { entry: string, outfile: string, policies?: boolean, apart?: Record<string, string>, inject?: string[] }[],
 *   entries?: { entry: string, outfile: string }[], compileCache?: boolean }[]}
 * `policies`: the bundled policy set (policies/, validated) is embedded as `__AMENDER_POLICY_BUNDLE__`.
 * `scripts`: CommonJS bundles of their `entry`, built beside the target's entries, which compile and run
 * them (src/adapters/script-cache.ts); `policies` as above; `apart`: packages bundled into their own
 * CommonJS file beside the script, which it requires when it first imports them (third-party code only,
 * so that no module of ours exists twice); `inject`: esbuild's, for that script only.
 * `entries`: more entry files beside the target's, each one CommonJS file of its own.
 * `compileCache`: the scripts' V8 code caches are written beside them, one per Node that compileCacheNodes()
 * names, after a warm-up review (scripts/compile-cache.mjs).
 * `options.entryPoints`, when given, replaces `entry` (a target of several entries; `outfile` is the first).
 */
export const TARGETS = [
  // Node server (Knative, any host): main.js compiles and runs server.cjs, and each review worker
  // (worker-entry.cjs, the worker pool of src/adapters/pool) worker.cjs, each script with the V8 code cache taken
  // after a warm-up review (as Lambda, below). The bundled set is embedded pre-parsed like Lambda's; the S3
  // sources are initialized, and the AWS SDK (aws-sdk.cjs) loaded, only when an s3:// source is configured.
  // server.cjs finds worker-entry.cjs beside main.js, and ../../policies from its own file. Its free `Headers` and
  // `Response` name the light classes of src/adapters/web, as Lambda's engine does (below), and its
  // requests are src/adapters/node-request.ts's: the server answers without loading Node's undici.
  {
    name: 'node',
    entry: 'src/adapters/node-entry.ts',
    outfile: 'dist/node/main.js',
    platform: 'node',
    compileCache: true,
    scripts: [
      {
        entry: 'src/adapters/node-main.ts',
        outfile: 'dist/node/server.cjs',
        policies: true,
        apart: { '@aws-sdk/client-s3': 'aws-sdk.cjs' },
        inject: ['src/adapters/web/globals.ts'],
      },
      { entry: 'src/adapters/pool/worker.ts', outfile: 'dist/node/worker.cjs', policies: true },
    ],
    // A review worker's entry is a CommonJS file: a worker thread started on an ES module first sets up
    // Node's ES module loader, which is on the critical path of a cold start once the main thread is ready.
    entries: [{ entry: 'src/adapters/pool/worker-entry.ts', outfile: 'dist/node/worker-entry.cjs' }],
    options: {
      entryPoints: { main: 'src/adapters/node-entry.ts' },
      outfile: undefined,
      outdir: 'dist/node',
      splitting: true,
      entryNames: '[name]',
      chunkNames: '[name]-[hash]',
      minify: true,
    },
  },
  { name: 'cli', entry: 'src/cli/bin.ts', outfile: 'dist/cli/amender.js', platform: 'node' },
  // Lambda (handler `index.handler`): a small ES module that compiles the engine, one CommonJS script
  // (engine.cjs), with the V8 code cache the build takes after a warm-up review (engine.cjs.v8-<V8>.v8cache,
  // src/adapters/script-cache.ts): unlike Node's compile cache it holds the functions a review runs. The
  // S3 sources are in that script but initialized only when an s3:// or file:// source is configured; the
  // AWS SDK they load is a script apart (aws-sdk.cjs), so that a start without the cache (another Node)
  // does not parse it. Lambda and Workers bundles are minified: parsing half the bytes is most of what a cold
  // start without a cache saves (bench/suites/60-cold-start.ts); the linked source maps give the names back.
  {
    name: 'lambda',
    entry: 'src/adapters/aws-lambda-entry.ts',
    outfile: 'dist/lambda/index.mjs',
    platform: 'node',
    compileCache: true,
    // `inject`: the engine's free `Headers` and `Response` name src/adapters/src/adapters/web's classes, which
    // answer without loading Node's undici (~50 ms of a cold start); the process's globals are untouched.
    scripts: [
      {
        entry: 'src/adapters/aws-lambda.ts',
        outfile: 'dist/lambda/engine.cjs',
        policies: true,
        apart: { '@aws-sdk/client-s3': 'aws-sdk.cjs' },
        inject: ['src/adapters/web/globals.ts'],
      },
    ],
    options: { minify: true },
  },
  {
    name: 'workers',
    entry: 'src/adapters/cloudflare-workers.ts',
    outfile: 'dist/workers/index.js',
    platform: 'browser',
    policies: true,
    // Legal comments at the end of the file: wrangler would upload a separate LEGAL.txt as a module.
    options: { target: 'es2022', conditions: ['workerd', 'worker', 'browser'], plugins: [refuseNodeBuiltins], legalComments: 'eof', minify: true },
  },
];

/** Validates a policy folder and returns its bundle as JSON text; throws with every problem. */
export async function policyBundleJson(policiesDir, distDir = join(root, 'dist')) {
  const tool = join(distDir, '.build', 'bundle-policies.mjs');
  await build({
    absWorkingDir: root,
    stdin: {
      contents: "export { bundlePolicyFolder } from './src/sources/node/bundle-folder.ts';\nexport { formatBundleProblems } from './src/sources/bundle.ts';\n",
      resolveDir: root,
      loader: 'ts',
      sourcefile: 'bundle-policies.ts',
    },
    outfile: tool,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: NODE_TARGETS,
    logLevel: 'warning',
    banner: { js: NODE_REQUIRE_BANNER },
    ...aliasFor('node'),
  });
  const { bundlePolicyFolder, formatBundleProblems } = await import(`${pathToFileURL(tool).href}?${Date.now()}`);
  const result = await bundlePolicyFolder(policiesDir);
  if (!result.ok) throw new Error(`invalid bundled policies in ${relative(root, policiesDir) || policiesDir}:\n${formatBundleProblems(result.problems)}`);
  return JSON.stringify(result.bundle);
}

/**
 * `options.policiesDir`: the folder embedded as the bundled set (default policies/); `options.distDir`:
 * where `dist/...` outputs go instead (benchmarks build variants without touching dist/);
 * `options.compileCacheNode`: the Node that writes the compile caches (default: each of compileCacheNodes();
 * null: none).
 */
export async function buildTargets(names = [], options = {}) {
  const selected = names.length ? TARGETS.filter((t) => names.includes(t.name)) : TARGETS;
  const unknown = names.filter((n) => !TARGETS.some((t) => t.name === n));
  if (unknown.length) throw new Error(`unknown build target(s): ${unknown.join(', ')} (known: ${TARGETS.map((t) => t.name).join(', ')})`);
  const distDir = options.distDir ?? join(root, 'dist');
  const inDist = (path) => (path === undefined ? undefined : join(distDir, relative('dist', path)));
  let policyBundle;
  const report = [];
  for (const target of selected) {
    const outdir = dirname(inDist(target.outfile));
    rmSync(outdir, { recursive: true, force: true });
    mkdirSync(outdir, { recursive: true });
    if (target.policies || target.scripts?.some((script) => script.policies)) policyBundle ??= await policyBundleJson(options.policiesDir ?? join(root, 'policies'), distDir);
    const result = await build({
      absWorkingDir: root,
      metafile: true,
      entryPoints: [target.entry],
      outfile: inDist(target.outfile),
      bundle: true,
      format: 'esm',
      platform: target.platform,
      target: NODE_TARGETS,
      sourcemap: 'linked',
      legalComments: 'linked',
      logLevel: 'warning',
      banner: target.platform === 'node' ? { js: NODE_REQUIRE_BANNER } : undefined,
      define: target.policies ? { __AMENDER_POLICY_BUNDLE__: policyBundle } : undefined,
      ...aliasFor(target.platform),
      ...target.options,
      ...(target.options?.outdir ? { outdir: inDist(target.options.outdir) } : {}),
    });
    // A CommonJS file (a target's `scripts` and `entries`, or a package kept apart from them), minified.
    const buildScript = (options) =>
      build({ absWorkingDir: root, bundle: true, format: 'cjs', platform: target.platform, target: NODE_TARGETS, legalComments: 'linked', logLevel: 'warning', minify: true, ...aliasFor(target.platform), ...options });
    // One of our modules as such a file; it has no import.meta: its module URL from the file it was compiled from.
    // A script loaded by src/adapters/script-cache.ts (`wrapped`) carries its CommonJS wrapper.
    const buildModule = (entry, outfile, { define = {}, wrapped = false, ...options } = {}) =>
      buildScript({
        entryPoints: [entry],
        outfile: inDist(outfile),
        sourcemap: 'linked',
        banner: { js: `${wrapped ? SCRIPT_WRAPPER.open : ''}var __amenderModuleUrl = require("node:url").pathToFileURL(__filename).href;` },
        ...(wrapped ? { footer: { js: SCRIPT_WRAPPER.close } } : {}),
        define: { 'import.meta.url': '__amenderModuleUrl', ...define },
        ...options,
      });
    for (const script of target.scripts ?? []) {
      await buildModule(script.entry, script.outfile, {
        wrapped: true,
        define: script.policies ? { __AMENDER_POLICY_BUNDLE__: policyBundle } : {},
        plugins: [requireApart(script.apart ?? {})],
        ...(script.inject ? { inject: script.inject } : {}),
      });
      for (const [pkg, file] of Object.entries(script.apart ?? {})) {
        await buildScript({
          stdin: { contents: `module.exports = require(${JSON.stringify(pkg)});`, resolveDir: root, loader: 'js' },
          outfile: join(dirname(inDist(script.outfile)), file),
        });
      }
    }
    for (const entry of target.entries ?? []) await buildModule(entry.entry, entry.outfile);
    const file = inDist(target.outfile);
    const sizes = { target: target.name, file: relative(root, file), bytes: statSync(file).size, gzip: gzipSync(readFileSync(file)).length };
    // Split targets: what the entry imports statically loads at cold start; dynamic imports load on demand.
    if (target.options?.splitting) {
      const { eager, lazy } = splitLoad(result.metafile, relative(root, file));
      Object.assign(sizes, { bytes: eager.bytes, gzip: eager.gzip, lazyChunkBytes: lazy.bytes });
    }
    // A target with scripts loads them at cold start (the first one, for the Node server: its workers load the second).
    if (target.scripts) {
      const script = readFileSync(inDist(target.scripts[0].outfile));
      Object.assign(sizes, { bytes: sizes.bytes + script.length, gzip: sizes.gzip + gzipSync(script).length });
    }
    if (target.compileCache) {
      const nodes = options.compileCacheNode === undefined ? compileCacheNodes() : options.compileCacheNode === null ? [] : [options.compileCacheNode];
      for (const node of nodes) {
        const files = await writeCompileCache({ node, target: target.name, dir: outdir });
        // The figure of the first Node's (Node 24's) caches: each Node reads only its own.
        sizes.compileCacheBytes ??= files.reduce((total, file) => total + statSync(file).size, 0);
      }
    }
    report.push(sizes);
  }
  if (options.distDir) return report;
  // Keep the figures of targets not rebuilt this time (`node scripts/build.mjs node`).
  const sizesFile = join(root, 'dist', 'sizes.json');
  let previous = [];
  try {
    previous = JSON.parse(readFileSync(sizesFile, 'utf8')).filter((r) => !report.some((n) => n.target === r.target) && TARGETS.some((t) => t.name === r.target));
  } catch {
    // first build
  }
  writeFileSync(sizesFile, JSON.stringify([...previous, ...report], null, 2) + '\n');
  return report;
}

/**
 * Bytes of the JS files `entry` loads at cold start — by static imports, and by the entry's own dynamic
 * imports (an entry that imports the rest that way loads it at once) — and of the other JS outputs.
 */
function splitLoad(metafile, entry) {
  const eager = new Set();
  const visit = (path) => {
    if (eager.has(path)) return;
    eager.add(path);
    for (const i of metafile.outputs[path]?.imports ?? []) {
      if (!i.external && (i.kind === 'import-statement' || (i.kind === 'dynamic-import' && path === entry))) visit(i.path);
    }
  };
  visit(entry);
  const js = Object.keys(metafile.outputs).filter((p) => /\.m?js$/.test(p));
  const sum = (paths) => paths.reduce((n, p) => n + statSync(join(root, p)).size, 0);
  const gzip = (paths) => paths.reduce((n, p) => n + gzipSync(readFileSync(join(root, p))).length, 0);
  const eagerFiles = js.filter((p) => eager.has(p));
  return { eager: { bytes: sum(eagerFiles), gzip: gzip(eagerFiles) }, lazy: { bytes: sum(js.filter((p) => !eager.has(p))) } };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let report;
  try {
    report = await buildTargets(process.argv.slice(2));
  } catch (err) {
    // esbuild has printed its own errors; say what failed (an invalid bundled policy names itself here).
    process.stderr.write(`build failed: ${err.message}\n`);
    process.exit(1);
  }
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  for (const r of report) {
    const lazy = r.lazyChunkBytes ? `, ${kb(r.lazyChunkBytes)} in chunks loaded on demand` : '';
    const cache = r.compileCacheBytes ? `, ${kb(r.compileCacheBytes)} code cache` : '';
    console.log(`built ${r.target.padEnd(8)} ${r.file.padEnd(24)} ${kb(r.bytes).padStart(11)}  (${kb(r.gzip)} gzip${lazy}${cache})`);
  }
}
