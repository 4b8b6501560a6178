/**
 * Every copied Kyverno CLI suite of MutatingAdmissionPolicies (test/kyverno-cli/map-tests) through `amender
 * test`: every result passes, as the suite declares it under Kyverno's CLI — the suites without a binding
 * too, since `amender test` runs an unbound policy as if bound, as Kyverno's CLI does, and says a cluster
 * never runs it (map.test.ts has the notes, and with-two-params' params list). The unbound suites also run
 * in map-tests-bound with one added binding that names the policy and narrows nothing: every result passes
 * there as well, through a real binding.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { capturedCliIO, suiteFolders } from '../fixtures/kyverno-library.js';

const DIR = 'test/kyverno-cli/map-tests';
const BOUND_COPIES = 'test/kyverno-cli/map-tests-bound';

/** The suite passes: no failed row, at least one passed, exit 0; its output. */
async function expectEveryResultPasses(suite: string): Promise<string> {
  const c = capturedCliIO();
  const code = await runCli(['test', suite], c.io);
  const out = c.out();
  expect(out).not.toMatch(/│ Fail /);
  expect(out).toMatch(/Test Summary: [1-9]\d* tests passed and 0 tests failed/);
  expect(code).toBe(0);
  return out;
}

describe('Kyverno CLI MutatingAdmissionPolicy suites, each on its own', () => {
  const folders = suiteFolders(DIR);
  const bound = folders.filter((f) => f.startsWith('with-binding-') || f === 'with-params' || f === 'with-two-params');
  const unbound = folders.filter((f) => !bound.includes(f));

  it('has all 14 upstream suites, 8 of them without a binding', () => {
    expect(folders).toHaveLength(14);
    expect(unbound).toHaveLength(8);
  });

  it.each(bound)('%s (bound) passes every result', async (folder) => {
    await expectEveryResultPasses(`${DIR}/${folder}`);
  });

  it.each(unbound)('%s (no binding) passes every result, run as if bound, and says a cluster would not run it', async (folder) => {
    const out = await expectEveryResultPasses(`${DIR}/${folder}`);
    expect(out).toMatch(/note: MutatingAdmissionPolicy \S+ has no binding: it runs as if bound, as in Kyverno's CLI \(a cluster never runs an unbound policy\)/);
  });

  const copies = suiteFolders(BOUND_COPIES);

  it('has a bound copy of every unbound suite', () => {
    expect(copies).toEqual(unbound);
  });

  it.each(copies)('%s with an added binding passes every result, with no note', async (folder) => {
    const out = await expectEveryResultPasses(`${BOUND_COPIES}/${folder}`);
    expect(out).not.toContain('has no binding');
  });
});
