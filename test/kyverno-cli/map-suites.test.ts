/**
 * Every copied Kyverno CLI suite of MutatingAdmissionPolicies (test/kyverno-cli/map-tests) through `amender
 * test`: a suite whose policy has a binding passes every result; one without a binding fails each result with
 * "No binding" only (a cluster never runs an unbound policy; map.test.ts has the message and with-two-params).
 * The unbound suites also run in map-tests-bound with one added binding that names the policy and narrows
 * nothing, so their mutations are checked too: every result passes.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { capturedCliIO, suiteFolders } from '../fixtures/kyverno-library.js';

const DIR = 'test/kyverno-cli/map-tests';
const BOUND_COPIES = 'test/kyverno-cli/map-tests-bound';
/** Label-selected params: evaluated one by one, as a cluster does (see map.test.ts). */
const PARAMS_AS_CLUSTER = new Set(['with-two-params']);

/** The suite passes: no failed row, at least one passed, exit 0. */
async function expectEveryResultPasses(suite: string): Promise<void> {
  const c = capturedCliIO();
  const code = await runCli(['test', suite], c.io);
  const out = c.out();
  expect(out).not.toMatch(/│ Fail /);
  expect(out).toMatch(/Test Summary: [1-9]\d* tests passed and 0 tests failed/);
  expect(code).toBe(0);
}

describe('Kyverno CLI MutatingAdmissionPolicy suites, each on its own', () => {
  const folders = suiteFolders(DIR);
  const bound = folders.filter((f) => f.startsWith('with-binding-') || f === 'with-params');
  const unbound = folders.filter((f) => !bound.includes(f) && !PARAMS_AS_CLUSTER.has(f));

  it.each(bound)('%s (bound) passes every result', (folder) => expectEveryResultPasses(`${DIR}/${folder}`));

  it.each(unbound)('%s (no binding) fails each result with No binding only', async (folder) => {
    const c = capturedCliIO();
    await runCli(['test', `${DIR}/${folder}`], c.io);
    const rows = c.out().split('\n').filter((l) => /^│ \d+ /.test(l));
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r).toMatch(/│ Fail\s+│ No binding\s+│$/);
  });

  const copies = suiteFolders(BOUND_COPIES);

  it('has a bound copy of every unbound suite', () => {
    expect(copies).toEqual(unbound);
  });

  it.each(copies)('%s with an added binding passes every result', (folder) => expectEveryResultPasses(`${BOUND_COPIES}/${folder}`));
});
