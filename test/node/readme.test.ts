/**
 * README.md against the code: every environment variable the Node server reads, and every config file
 * key, has a row in the configuration table; the variable list itself covers every name the server's
 * modules read, and every variable any module of src/ reads is documented (the serverless platforms' own
 * in infra/lambda/README.md); the settings every platform shares have their file key, default and "all"
 * in their row; every metric the code registers and every log line it writes is named; the commands of
 * the CLI are all described, with the options they take.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE_KEYS, ENVIRONMENT_VARIABLES, readNodeConfig } from '../../src/adapters/node-config.js';
import { SERVERLESS_ENVIRONMENT_VARIABLES } from '../../src/adapters/serverless-config.js';
import { COMMON_SETTINGS } from '../../src/runtime/index.js';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';
import { ROOT } from './built.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

const LAMBDA_README = readFileSync(join(ROOT, 'infra/lambda/README.md'), 'utf8');

/** The cells of the table under "## Configuration", by the variable of their first cell. */
function configurationTable(): Map<string, string[]> {
  const section = README.slice(README.indexOf('\n## Configuration'), README.indexOf('\n## ', README.indexOf('\n## Configuration') + 1));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length > 3 && /^`[A-Z0-9_<>]+`$/.test(cells[1])) rows.set(cells[1].slice(1, -1), cells.slice(1, -1));
  }
  return rows;
}

/** The rows of the table under "## Configuration": first cell → second cell. */
function configurationRows(): Map<string, string> {
  return new Map([...configurationTable()].map(([name, cells]) => [name, cells[1]]));
}

/** Every .ts file below a folder of the repository. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  );
}

/** A file's text without its comments (a name in a comment is read by nobody). */
function code(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
}

/** The README's text with its line breaks as spaces, for names and messages a paragraph wraps. */
const README_FLAT = README.replace(/\s+/g, ' ');

/**
 * Set by the build's warm-up runs only (scripts/compile-cache.mjs), never by a user: what an operator sets
 * is documented, this is not.
 */
const BUILD_ONLY_VARIABLES = ['AMENDER_WRITE_CODE_CACHE', 'AMENDER_COMPILE_CACHE_NODE'];

/** Environment variable names in the source of the server's own modules: `env.NAME`, `env: 'NAME'`, `'AMENDER_…'`/`'AWS_…'` literals. */
function variablesReadBy(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\b(?:env|variable): '([A-Z][A-Z0-9_]+)'|['"`]((?:AMENDER|AWS)_[A-Z0-9_]+)['"`]/g)) names.add(m[1] ?? m[2] ?? m[3]);
    // Template names (`AMENDER_CLUSTER_${key}_SOURCES`) as the README writes them.
    for (const m of text.matchAll(/`(AMENDER_[A-Z_]*)\$\{[^}]+\}(_[A-Z_]+)`/g)) names.add(`${m[1]}<NAME>${m[2]}`);
  }
  return names;
}

describe('README.md', () => {
  it('has a configuration row for every environment variable the Node server reads', () => {
    const rows = configurationRows();
    for (const name of ENVIRONMENT_VARIABLES) expect(rows.has(name), `README configuration row for ${name}`).toBe(true);
  });

  it('lists every config file key in the table', () => {
    const keys = [...configurationRows().values()].flatMap((cell) => [...cell.matchAll(/`([a-zA-Z.<>]+)`/g)].map((m) => m[1]));
    for (const key of CONFIG_FILE_KEYS) expect(keys, `config file key ${key}`).toContain(key);
  });

  it('and the list of variables read is complete', () => {
    const files = [
      'src/adapters/node-config.ts',
      'src/adapters/node-main.ts',
      'src/adapters/node-policies.ts',
      ...readdirSync(join(ROOT, 'src/runtime')).filter((f) => f.endsWith('.ts')).map((f) => `src/runtime/${f}`),
      ...readdirSync(join(ROOT, 'src/clusters')).filter((f) => f.endsWith('.ts')).map((f) => `src/clusters/${f}`),
      ...readdirSync(join(ROOT, 'src/sources/node')).filter((f) => f.endsWith('.ts')).map((f) => `src/sources/node/${f}`),
    ];
    const read = variablesReadBy(files);
    expect([...read].sort()).toEqual(expect.arrayContaining(['AMENDER_CLUSTER_<NAME>_SECRET_HASHES', 'AMENDER_S3_ENDPOINT', 'AWS_REGION', 'PORT']));
    for (const name of read) expect(ENVIRONMENT_VARIABLES, `${name} is read by the server`).toContain(name);
  });

  it('documents every AMENDER_ variable any module of src/ reads: in the table, or (Lambda and Workers only) in infra/lambda/README.md', () => {
    const read = variablesReadBy(sourceFiles('src'));
    expect([...read]).toEqual(expect.arrayContaining(['AMENDER_REFRESH_WAIT_MS', 'AMENDER_WORKER_NICE', 'AMENDER_S3_FORCE_PATH_STYLE']));
    const rows = configurationRows();
    for (const name of read) {
      if (BUILD_ONLY_VARIABLES.includes(name) || !name.startsWith('AMENDER_')) continue;
      const documented = rows.has(name) || (SERVERLESS_ENVIRONMENT_VARIABLES.includes(name) && LAMBDA_README.includes(`| \`${name}\` |`));
      expect(documented, `${name} is read in src/ but not documented`).toBe(true);
    }
  });

  it('links only to files that exist and headings that exist, in the README and the deployment guides', () => {
    for (const file of ['README.md', 'infra/README.md', 'infra/lambda/README.md']) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const slugs = new Set([...text.matchAll(/^#+ (.*)$/gm)].map((m) => m[1].toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')));
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^https?:/.test(target)) continue;
        if (target.startsWith('#')) expect(slugs.has(target.slice(1)), `${file}: heading ${target}`).toBe(true);
        else expect(existsSync(join(ROOT, dirname(file), target.split('#')[0])), `${file}: ${target}`).toBe(true);
      }
    }
  });

  it("names in the quick start's commands only files and folders that exist", () => {
    const start = README.indexOf('\n## Quick start');
    const section = README.slice(start, README.indexOf('\n## ', start + 1));
    const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].replace(/#.*$/gm, '')).join('\n');
    const paths = [...commands.matchAll(/(?:^|\s)@?((?:policies|test|infra|src|bench)\/[\w./-]*|policies)(?=\s|$)/g)].map((m) => m[1]);
    expect(paths).toContain('test/fixtures/reviews/pod-create.json');
    for (const path of paths) expect(existsSync(join(ROOT, path)), path).toBe(true);
  });

  it('has an example config file the server reads (its hash placeholder filled in)', () => {
    const start = README.indexOf('```yaml', README.indexOf('Example config file:')) + '```yaml'.length;
    const example = README.slice(start, README.indexOf('```', start));
    const config = readNodeConfig({}, example.replace(/sha256:[0-9a-f]*…/g, `sha256:${'ab'.repeat(32)}`));
    expect(config).toMatchObject({ port: 8443, tls: { certFile: '/etc/amender/tls/tls.crt' }, clusters: [{ name: 'prod-eu', refreshSeconds: 30 }] });
  });

  it('gives each setting every platform reads its file key, its default and "all"', () => {
    const table = configurationTable();
    for (const setting of Object.values(COMMON_SETTINGS)) {
      const cells = table.get(setting.variable);
      expect(cells, setting.variable).toBeDefined();
      const [, fileKey, defaultCell, where] = cells!;
      expect(fileKey, `${setting.variable}: file key`).toBe(`\`${setting.fileKey}\``);
      if (setting.default === undefined) {
        expect(defaultCell, `${setting.variable}: no default`).toBe('—');
      } else {
        const value = Array.isArray(setting.default) ? setting.default.join(',') : String(setting.default);
        expect(defaultCell, `${setting.variable}: default`).toMatch(new RegExp(`^\`${value}\`( |$)`));
      }
      expect(where, `${setting.variable}: where`).toBe('all');
    }
  });

  it('names every metric the code registers', () => {
    const metrics = new Set(sourceFiles('src').flatMap((file) => [...code(file).matchAll(/['"`](amender_[a-z0-9_]+)['"`]/g)].map((m) => m[1])));
    expect(metrics.size).toBeGreaterThan(40);
    for (const name of metrics) expect(new RegExp(`\`${name}(\\{[^}]*\\})?\``).test(README_FLAT), `README names the metric ${name}`).toBe(true);
  });

  it('names every log line the code writes', () => {
    const messages = new Set<string>();
    for (const file of sourceFiles('src')) {
      const text = code(file);
      // `msg: 'text'`, and the texts a `msg: cond ? 'a' : 'b'` chooses from.
      for (const m of text.matchAll(/\bmsg: ([^,\n]+)/g)) for (const s of m[1].matchAll(/(?:^|[?:]\s*)'([^']+)'/g)) messages.add(s[1]);
      for (const m of text.matchAll(/capEventLog\(\w+, '([^']+)'/g)) messages.add(m[1]);
    }
    expect([...messages]).toEqual(expect.arrayContaining(['request', 'policy stopped', 'policy error ignored', 'connections refused', 'listening']));
    for (const msg of messages) expect(README_FLAT.includes(`\`${msg}\``), `README names the log line "${msg}"`).toBe(true);
  });

  it('describes every CLI command', async () => {
    const io = fakeIO({});
    await runCli(['--help'], io);
    const commands = [...io.stdout.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1]);
    expect(commands).toContain('hash-secret');
    for (const command of commands) expect(README, `README describes amender ${command}`).toContain(`- \`amender ${command}`);
  });

  it("describes each command's options as its help does, and every option it describes is taken", async () => {
    const io = fakeIO({});
    await runCli(['--help'], io);
    const commands = [...io.stdout.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1]);
    const section = README.slice(README.indexOf('\n## CLI'), README.indexOf('\n### ', README.indexOf('\n## CLI')));
    for (const command of commands) {
      const start = section.indexOf(`- \`amender ${command}`);
      const end = section.indexOf('\n- `', start + 1);
      const described = new Set([...section.slice(start, end === -1 ? undefined : end).matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]));
      const help = fakeIO({});
      await runCli([command, '--help'], help);
      const usage = help.stdout.slice(0, help.stdout.search(/\n {2}[A-Z]/));
      for (const option of usage.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)) expect(described, `README's amender ${command} names ${option[0]}`).toContain(option[0]);
      for (const option of described) {
        const run = fakeIO({});
        await runCli([command, option], run);
        expect(run.stderr, `amender ${command} takes ${option}`).not.toContain(`unknown option ${option}`);
      }
    }
  });
});
