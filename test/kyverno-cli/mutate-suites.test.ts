/**
 * Kyverno's own CLI test suites with ClusterPolicy / Policy mutate rules (test/cli), copied unchanged in
 * test/kyverno-cli-mutate (README there: source commit and folder names), run through `amender test`: every
 * mutate result passes. The only rows allowed to fail are the validate results of the two `mixed` suites,
 * which Amender does not run ("Not run"); COVERAGE-cli.md in test/vectors/kyverno lists every mutate suite.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { capturedCliIO, suiteFolders } from '../fixtures/kyverno-library.js';

const SUITES = 'test/kyverno-cli-mutate';
/** Results of validate rules in the copied suites: policy / rule / resource of each. */
const VALIDATE_ROWS: Record<string, string[]> = {
  'test--mixed': [
    'ondemand | ondemand-managed_by | v1/Pod/user-foo/nodeselector-without-labels-on-mutation',
    'ondemand | ondemand-managed_by | v1/Pod/user-space/nodeselector-with-labels-on-mutation',
  ],
  'test--mixed-deprecated': [
    'ondemand | ondemand-managed_by | v1/Pod/user-foo/nodeselector-without-labels-on-mutation',
    'ondemand | ondemand-managed_by | v1/Pod/user-space/nodeselector-with-labels-on-mutation',
  ],
};

function rows(out: string) {
  return out
    .split('\n')
    .filter((l) => /^│ \d+ /.test(l))
    .map((l) => l.split('│').map((c) => c.trim()).filter((c) => c !== '').slice(1));
}

describe("Kyverno's CLI mutate-rule tests through amender test", () => {
  const folders = suiteFolders(SUITES);

  it.each(folders)('%s passes every mutate result', async (folder) => {
    const c = capturedCliIO();
    const code = await runCli(['test', `${SUITES}/${folder}`], c.io);
    const out = c.out();
    const all = rows(out);
    const failed = all.filter((r) => r[3] !== 'Pass');
    expect(failed.map((r) => `${r.slice(0, 3).join(' | ')}: ${r[4]}`), out).toEqual((VALIDATE_ROWS[folder] ?? []).map((r) => `${r}: Not run`));
    const mutateRows = all.length - failed.length;
    expect(mutateRows, out).toBeGreaterThan(0);
    const summary = /Test Summary: (\d+) tests passed and (\d+) tests failed/.exec(out);
    expect(summary, out).not.toBeNull();
    expect(Number(summary![1]), out).toBe(mutateRows);
    expect(code).toBe(failed.length > 0 ? 1 : 0);
  });
});
