/**
 * Kyverno's own CLI test suites for MutatingPolicies (test/cli, results with isMutatingPolicy), copied in
 * test/kyverno-cli-mpol (README there: source commit and adaptations), run through `amender test`: every
 * result passes and none is left out.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { capturedCliIO, suiteFolders } from '../fixtures/kyverno-library.js';

const SUITES = 'test/kyverno-cli-mpol';

describe("Kyverno's CLI MutatingPolicy tests through amender test", () => {
  const folders = suiteFolders(SUITES);

  it.each(folders)('%s passes every result', async (folder) => {
    const c = capturedCliIO();
    const code = await runCli(['test', `${SUITES}/${folder}`], c.io);
    const out = c.out();
    expect(out).not.toMatch(/│ Fail /);
    const summary = /Test Summary: (\d+) tests passed and (\d+) tests failed/.exec(out);
    expect(summary, out).not.toBeNull();
    expect(Number(summary![1]), out).toBeGreaterThan(0);
    expect(Number(summary![2]), out).toBe(0);
    expect(code).toBe(0);
  });
});
