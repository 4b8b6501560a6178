/**
 * The layering check: dependency-cruiser with `.dependency-cruiser.cjs` over src/. dependency-cruiser
 * reads TypeScript through the `typescript` package up to 6.x, and this project compiles with 7 (no JS
 * API), so every src/**\/*.ts is first transpiled with esbuild (transform only, imports kept verbatim,
 * type-only imports kept as dynamic imports: a type is a dependency too) into a temporary mirror of src/ whose
 * `.js` files are exactly what the imports name; the cruise runs there and reports paths as `.ts`.
 *
 *   npm run layers                  prints every violation; exit 1 when there is one
 *   checkLayers({ overlay })        the same as data; `overlay` adds or replaces files (tests)
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { cruise } from 'dependency-cruiser';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

export interface LayerViolation {
  /** The rule of .dependency-cruiser.cjs. */
  rule: string;
  /** Repository paths of the importing and the imported module (`.ts`). */
  from: string;
  to: string;
  comment: string;
  cycle?: string[];
}

interface CruiserConfig {
  forbidden: { name: string; comment: string }[];
  options: Record<string, unknown>;
}

/** The .ts files below `dir`, as paths relative to the repository (forward slashes). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/**
 * `import type … from 'p'` and `export type {…} from 'p'` become `import('p')`: the transpiler would drop
 * them, and a type is a dependency for the layer and face rules. As a dynamic import, dependency-cruiser
 * tells it from a load-time import, so a cycle counts only through value imports, as at run time.
 */
function keepTypeImports(text: string): string {
  return text
    .replace(/^\s*import type\s[^;]*?\sfrom\s*(['"][^'"]+['"])\s*;/gm, (_m, spec: string) => `import(${spec});`)
    .replace(/^\s*export type\s*\{[^}]*\}\s*from\s*(['"][^'"]+['"])\s*;/gm, (_m, spec: string) => `import(${spec});`);
}

/**
 * Cruises src/ (with `overlay`: repository path → text, added or replacing) and returns the violations:
 * `{ rule, from, to, comment, cycle? }` with `.ts` paths relative to the repository.
 */
export async function checkLayers({ overlay = {} }: { overlay?: Record<string, string> } = {}): Promise<{ modules: number; violations: LayerViolation[] }> {
  const mirror = mkdtempSync(join(tmpdir(), 'amender-layers-'));
  try {
    const texts = new Map(sourceFiles('src').map((p) => [p, readFileSync(join(ROOT, p), 'utf8')]));
    for (const [path, text] of Object.entries(overlay)) texts.set(path, text);
    await Promise.all(
      [...texts].map(async ([path, text]) => {
        const { code } = await transform(keepTypeImports(text), { loader: 'ts', format: 'esm', sourcefile: path, tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } } });
        const out = join(mirror, path.replace(/\.ts$/, '.js'));
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, code);
      }),
    );
    // npm packages resolve as from the repository (the core-is-platform-free rule names some).
    symlinkSync(join(ROOT, 'node_modules'), join(mirror, 'node_modules'), 'dir');
    const require = createRequire(import.meta.url);
    const config = require(CONFIG) as CruiserConfig;
    const cwd = process.cwd();
    process.chdir(mirror);
    let result: Awaited<ReturnType<typeof cruise>>;
    try {
      const options = { ...config.options, ruleSet: { forbidden: config.forbidden }, validate: true, baseDir: mirror, outputType: 'json' };
      result = await cruise(['src'], options as Parameters<typeof cruise>[1]);
    } finally {
      process.chdir(cwd);
    }
    const output = (typeof result.output === 'string' ? JSON.parse(result.output) : result.output) as {
      summary: { totalCruised: number; violations: { rule: { name: string; severity: string }; from: string; to: string; cycle?: ({ name: string } | string)[] }[] };
    };
    const ts = (p: string) => (p.startsWith('src/') ? p.replace(/\.js$/, '.ts') : p);
    const comments = new Map(config.forbidden.map((r) => [r.name, r.comment]));
    return {
      modules: output.summary.totalCruised,
      violations: output.summary.violations.filter((v) => v.rule.severity !== 'ignore').map((v) => ({
        rule: v.rule.name,
        from: ts(v.from),
        to: ts(v.to),
        comment: comments.get(v.rule.name) ?? '',
        ...(v.cycle ? { cycle: v.cycle.map((c) => ts(typeof c === 'string' ? c : c.name)) } : {}),
      })),
    };
  } finally {
    rmSync(mirror, { recursive: true, force: true });
  }
}

export function formatViolations(violations: readonly LayerViolation[]): string {
  return violations.map((v) => `${v.rule}: ${v.from} → ${v.to}${v.cycle ? ` (cycle: ${v.cycle.join(' → ')})` : ''}\n    ${v.comment}`).join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { modules, violations } = await checkLayers();
  if (violations.length > 0) {
    process.stderr.write(`${formatViolations(violations)}\n${violations.length} layering violation(s) in ${modules} modules\n`);
    process.exit(1);
  }
  process.stdout.write(`layers: no violation in ${modules} modules\n`);
}
