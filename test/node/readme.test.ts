/**
 * README.md against the code: every environment variable the Node server reads, and every config file
 * key, has a row in the configuration table; the variable list itself covers every name the server's
 * modules read; the commands of the CLI are all described.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE_KEYS, ENVIRONMENT_VARIABLES } from '../../src/adapters/node-config.js';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';
import { ROOT } from './built.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The rows of the table under "## Configuration": first cell → second cell. */
function configurationRows(): Map<string, string> {
  const section = README.slice(README.indexOf('\n## Configuration'), README.indexOf('\n## ', README.indexOf('\n## Configuration') + 1));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length > 3 && /^`[A-Z0-9_<>]+`$/.test(cells[1])) rows.set(cells[1].slice(1, -1), cells[2]);
  }
  return rows;
}

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

  it('describes every CLI command', async () => {
    const io = fakeIO({});
    await runCli(['--help'], io);
    const commands = [...io.stdout.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1]);
    expect(commands).toContain('hash-secret');
    for (const command of commands) expect(README, `README describes amender ${command}`).toContain(`- \`amender ${command}`);
  });
});
