/**
 * Kyverno's policy library, unchanged: every copied mutate policy test runs through `amender test` (the
 * CLI's public entry, real files) and every result passes, except the folders EXCLUDED.md lists.
 */
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { capturedCliIO, excludedFolders, libraryFolders } from '../fixtures/kyverno-library.js';
import { ROOT } from '../node/built.js';

const LIBRARY = 'test/kyverno-library';

describe('Kyverno policy library tests through amender test', () => {
  const skip = excludedFolders(LIBRARY);
  const folders = libraryFolders(LIBRARY).filter((f) => !skip.has(f));

  it('has the copied tests and excludes only folders that exist', () => {
    expect(folders.length).toBeGreaterThanOrEqual(40);
    for (const f of skip) expect(libraryFolders(LIBRARY)).toContain(f);
    for (const f of folders) expect(statSync(`${ROOT}${LIBRARY}/${f}/.kyverno-test/kyverno-test.yaml`).isFile()).toBe(true);
  });

  it('passes every result of every test', async () => {
    const c = capturedCliIO();
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
