/**
 * Kyverno's policy library, unchanged: every copied mutate policy test runs through `amender test` (the
 * CLI's public entry, real files) and every result passes, except the folders EXCLUDED.md lists.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { nodeCliIO } from '../../src/cli/node-io.js';
import { ROOT } from '../node/built.js';

const LIBRARY = 'test/kyverno-library';

/** `category/policy` folders listed under "## Excluded" as "- `category/policy`: reason". */
function excluded(): Set<string> {
  const text = readFileSync(`${ROOT}${LIBRARY}/EXCLUDED.md`, 'utf8');
  const section = text.split('## Excluded')[1] ?? '';
  return new Set([...section.matchAll(/^- `([^`]+)`:/gm)].map((m) => m[1]));
}

function testFolders(): string[] {
  const out: string[] = [];
  for (const category of readdirSync(`${ROOT}${LIBRARY}`).sort()) {
    if (!statSync(`${ROOT}${LIBRARY}/${category}`).isDirectory()) continue;
    for (const policy of readdirSync(`${ROOT}${LIBRARY}/${category}`).sort()) out.push(`${category}/${policy}`);
  }
  return out;
}

function capture() {
  const io = nodeCliIO(ROOT);
  let stdout = '';
  let stderr = '';
  return { io: { ...io, out: (t: string) => void (stdout += t), err: (t: string) => void (stderr += t) }, out: () => stdout, err: () => stderr };
}

describe('Kyverno policy library tests through amender test', () => {
  const skip = excluded();
  const folders = testFolders().filter((f) => !skip.has(f));

  it('has the copied tests and excludes only folders that exist', () => {
    expect(folders.length).toBeGreaterThanOrEqual(40);
    for (const f of skip) expect(testFolders()).toContain(f);
    for (const f of folders) expect(statSync(`${ROOT}${LIBRARY}/${f}/.kyverno-test/kyverno-test.yaml`).isFile()).toBe(true);
  });

  it('passes every result of every test', async () => {
    const c = capture();
    const code = await runCli(['test', ...folders.map((f) => `${LIBRARY}/${f}`)], c.io);
    const out = c.out();
    // Every test file was found and run (in its .kyverno-test folder).
    for (const f of folders) expect(out).toContain(`( ${LIBRARY}/${f}/.kyverno-test/kyverno-test.yaml )`);
    expect(out).not.toMatch(/│ Fail /);
    expect(out).not.toMatch(/Error:/);
    const summary = /Test Summary: (\d+) tests passed and (\d+) tests failed/.exec(out);
    expect(summary).not.toBeNull();
    expect(Number(summary![2])).toBe(0);
    expect(Number(summary![1])).toBeGreaterThanOrEqual(90);
    expect(code).toBe(0);
  });
});
