/**
 * The values README.md's configuration tables state, against the readers that take them: each row's
 * default, set explicitly, reads as leaving the variable unset does; and each bound a row states ("at most
 * `N`", "at least N", "`A` to `B`", "at most a day") is where the reader starts refusing. test/node/readme.test.ts checks
 * that every variable has a row (and the shared settings' defaults); this checks what the rows say, so a
 * default or a bound changed in the code without the docs fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNodeConfig } from '../../src/adapters/node-config.js';
import { readPoolSettings, POOL_ENVIRONMENT_VARIABLES } from '../../src/adapters/pool/index.js';
import { readServerlessConfig } from '../../src/adapters/serverless-config.js';
import { DEFAULT_BODY_BUDGET_MB } from '../../src/adapters/node-defaults.js';
import { WORKERS_BODY_BUDGET_MB } from '../../src/adapters/workers-handler.js';
import { readS3Settings } from '../../src/sources/node/index.js';
import { ROOT } from '../node/built.js';

type Env = Record<string, string>;

/** Rows of the markdown table that follows `heading` in `file`: first cell (a `VARIABLE`) → its cells. */
function table(file: string, heading: string): Map<string, string[]> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `${file}: ${heading}`).toBeGreaterThan(-1);
  const section = text.slice(start + 1, text.indexOf('\n## ', start + 1));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim()).slice(1, -1);
    if (/^`[A-Z][A-Z0-9_]+`$/.test(cells[0] ?? '')) rows.set(cells[0].slice(1, -1), cells);
  }
  return rows;
}

/** The value a default cell states: its leading `value` in backticks (`8388608` (8 MiB)), if any. */
function statedDefault(cell: string): string | undefined {
  const m = /^`([^`]+)`(?: \([^)]*\))?$/.exec(cell); // `8388608` (8 MiB); not `true` with …, else `false`
  return m && !/^[A-Z][A-Z0-9_]+$/.test(m[1]) ? m[1] : undefined; // not another variable's name
}

/** A reader's verdict on an environment: the settings it reads, or its problems. */
type Reader = (env: Env) => { value: unknown } | { problems: string };

function verdict(read: () => unknown): { value: unknown } | { problems: string } {
  try {
    return { value: read() };
  } catch (err) {
    const e = err as { problems?: string[]; message: string };
    return { problems: e.problems?.join('; ') ?? e.message };
  }
}

// Fixed parallelism and no memory limit, so the pool's defaults do not depend on the machine.
const pool: Reader = (env) => {
  const { settings, problems } = readPoolSettings(env, 4, undefined);
  return problems.length > 0 ? { problems: problems.join('; ') } : { value: settings };
};
const node: Reader = (env) => verdict(() => readNodeConfig(env));
const s3: Reader = (env) => verdict(() => readS3Settings(env));
const serverless: Reader = (env) => verdict(() => readServerlessConfig(env));

function nodeReader(variable: string): Reader {
  if (POOL_ENVIRONMENT_VARIABLES.includes(variable)) return pool;
  if (variable.startsWith('AMENDER_S3_') || variable.startsWith('AWS_')) return s3;
  return node;
}

/** Figures a row states of its default, not of what may be set: the heap a memory limit leaves, at most 512. */
const BOUNDS_OF_THE_DEFAULT: Record<string, string[]> = { AMENDER_WORKER_HEAP_MB: ['512'] };

/** What a bound of a row needs beside it: the header timeout is at most the request timeout (its default cell says so). */
const WITH: Record<string, Env> = { AMENDER_HEADERS_TIMEOUT_MS: { AMENDER_REQUEST_TIMEOUT_MS: '86400000' } };

/** The bounds a row's text states, as [value accepted, value refused] pairs. */
function statedBounds(variable: string, text: string): [string, string][] {
  const pairs: [string, string][] = [];
  // "at most a day": in the variable's unit.
  const day = variable.endsWith('_MS') ? 86_400_000 : variable.endsWith('_SECONDS') ? 86_400 : undefined;
  if (day !== undefined && /at most a day/.test(text)) pairs.push([String(day), String(day + 1)]);
  const n = (s: string) => Number(s.replace(/,/g, ''));
  for (const m of text.matchAll(/at most `?(\d[\d,]*)`?(?![\d,]*\s*(?:ms|s\b|MB|KiB|MiB|characters|levels|per|%))/g)) pairs.push([String(n(m[1])), String(n(m[1]) + 1)]);
  for (const m of text.matchAll(/at least `?(\d[\d,]*)`?(?![\d,]*\s*(?:ms|s\b|MB|KiB|MiB|characters|per|%))/g)) if (n(m[1]) > 0) pairs.push([String(n(m[1])), String(n(m[1]) - 1)]);
  for (const m of text.matchAll(/`(\d+)` to `(\d+)`/g)) pairs.push([m[1], String(n(m[1]) - 1)], [m[2], String(n(m[2]) + 1)]);
  return pairs;
}

function checkRows(rows: Map<string, string[]>, defaultColumn: number, readerOf: (variable: string) => Reader, skip: readonly string[]): string[] {
  const checked: string[] = [];
  for (const [variable, cells] of rows) {
    if (variable.includes('<') || skip.includes(variable)) continue;
    const read = readerOf(variable);
    const unset = read({});
    expect(unset, `${variable}: the settings read with nothing set`).toHaveProperty('value');
    const stated = statedDefault(cells[defaultColumn]);
    if (stated !== undefined) {
      expect(read({ [variable]: stated }), `${variable}=${stated} (the documented default) reads as unset`).toEqual(unset);
      checked.push(variable);
    }
    for (const [accepted, refused] of statedBounds(variable, cells[cells.length - 1])) {
      if (BOUNDS_OF_THE_DEFAULT[variable]?.includes(accepted)) continue;
      expect(read({ ...WITH[variable], [variable]: accepted }), `${variable}=${accepted} is within the documented bound`).toHaveProperty('value');
      if (Number(refused) >= 0) expect(read({ ...WITH[variable], [variable]: refused }), `${variable}=${refused} is past the documented bound`).toHaveProperty('problems');
      checked.push(`${variable} ${accepted}`);
    }
  }
  return checked;
}

/**
 * Rows whose figures are not a reader's: the worker count's bound depends on the cores (checked below), and
 * the body budget's default is applied by each platform's server, not by its reader (checked below).
 */
const NOT_BY_THE_READER = ['AMENDER_WORKERS', 'AMENDER_BODY_BUDGET_MB'];

describe("README.md's configuration table", () => {
  const rows = table('README.md', '## Configuration');

  it("states the Node server's defaults and bounds as its readers apply them", () => {
    const checked = checkRows(rows, 2, nodeReader, NOT_BY_THE_READER);
    expect(checked).toEqual(expect.arrayContaining(['PORT', 'AMENDER_MAX_CONNECTIONS', 'AMENDER_WORKER_NICE', 'AMENDER_LOG_BACKLOG_BYTES 65536', 'AMENDER_WORKER_NICE 19', 'AMENDER_MAX_JSON_DEPTH 1000', 'AMENDER_SHUTDOWN_TIMEOUT_MS 86400000']));
  });

  it('states the bound of AMENDER_WORKERS: four per core, at least 16', () => {
    expect(rows.get('AMENDER_WORKERS')?.[4]).toMatch(/at most four per core \(at least 16\)/);
    for (const [cores, most] of [[2, 16], [8, 32]]) {
      expect(readPoolSettings({ AMENDER_WORKERS: String(most) }, cores, undefined).problems).toEqual([]);
      expect(readPoolSettings({ AMENDER_WORKERS: String(most + 1) }, cores, undefined).problems).toHaveLength(1);
    }
  });

  it("states each platform's default body budget", () => {
    expect(rows.get('AMENDER_BODY_BUDGET_MB')?.[2]).toMatch(new RegExp(`^Node: \`${DEFAULT_BODY_BUDGET_MB}\`.*Workers: \`${WORKERS_BODY_BUDGET_MB}\`$`));
  });
});

describe("infra/lambda/README.md's configuration table", () => {
  const rows = table('infra/lambda/README.md', '## Configuration');

  it("states Lambda's and Workers' defaults and bounds as their reader applies them", () => {
    const checked = checkRows(rows, 1, (v) => (v.startsWith('AMENDER_S3_') || v.startsWith('AWS_') ? s3 : serverless), NOT_BY_THE_READER);
    expect(checked).toEqual(expect.arrayContaining(['AMENDER_REFRESH_WAIT_MS', 'AMENDER_REFRESH_SECONDS 86400', 'AMENDER_BODY_TIMEOUT_MS 86400000']));
  });

  it("states the Workers' default body budget", () => {
    expect(rows.get('AMENDER_BODY_BUDGET_MB')?.[1]).toBe(`\`${WORKERS_BODY_BUDGET_MB}\``);
  });
});
