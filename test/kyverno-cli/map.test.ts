/**
 * MutatingAdmissionPolicies in Kyverno CLI test files (Kyverno's own tests, copied unchanged): run by
 * Amender's engine as a cluster runs them, with a note where Kyverno's CLI does otherwise.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { nodeCliIO } from '../../src/cli/node-io.js';
import { ROOT } from '../node/built.js';

const DIR = 'test/kyverno-cli/map-tests';

async function run(...folders: string[]) {
  let stdout = '';
  const io = { ...nodeCliIO(ROOT), out: (t: string) => void (stdout += t), err: () => undefined };
  const code = await runCli(['test', ...folders.map((f) => `${DIR}/${f}`)], io);
  const rows = stdout.split('\n').filter((l) => /^│ \d+ /.test(l)).map((l) => l.split('│').map((c) => c.trim()).filter((c) => c !== '').slice(1).join(' | '));
  return { code, stdout, rows };
}

describe('MutatingAdmissionPolicies in kyverno-test.yaml', () => {
  it('passes bound policies: params, binding match resources and namespace selectors from values', async () => {
    const r = await run('with-params', 'with-binding-match-resources', 'with-binding-namespace-selector', 'with-binding-exclude-resources');
    expect(r.rows.every((row) => row.endsWith('| Pass | Ok'))).toBe(true);
    expect(r.rows).toContain('change-deployment-replicas | change-deployment-replicas | apps/v1/Deployment/default/test-deployment | Pass | Ok');
    expect(r.stdout).toMatch(/Test Summary: \d+ tests passed and 0 tests failed/);
    expect(r.code).toBe(0);
  });

  it('fails an unbound policy, as a cluster never runs it, and says why', async () => {
    const r = await run('mutate-namespace');
    // (the rule column is empty: the result names no rule)
    expect(r.rows).toEqual(['add-label-to-namespace | v1/Namespace//test-namespace | Fail | No binding']);
    expect(r.stdout).toContain('has no binding: a cluster never runs it');
    expect(r.code).toBe(1);
  });

  it('evaluates label-selected params one at a time, as a cluster does, and says so', async () => {
    const r = await run('with-two-params');
    expect(r.stdout).toContain("selects params by label: each param is evaluated on its own, as in a cluster (Kyverno's CLI passes them all as one list)");
    expect(r.rows).toEqual(['change-deployment-replicas-labels | change-deployment-replicas-labels | apps/v1/Deployment/default/test-deployment | Fail | Resource diff']);
    expect(r.stdout).toContain('/spec/replicas: expected 10, got 1');
    expect(r.code).toBe(1);
  });
});
