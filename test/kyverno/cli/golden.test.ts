/**
 * The Kyverno constructs through the `amender` CLI: golden suites (`amender test`) under
 * test/fixtures/kyverno, and `amender apply` on the two-policy elementIndex case.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CliIO } from '../../../src/cli/io.js';
import { runCli } from '../../../src/cli/main.js';
import { nodeCliIO } from '../../../src/cli/node-io.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

function capturingIO(): CliIO & { stdout: string; stderr: string } {
  const base = nodeCliIO(ROOT);
  const io = {
    ...base,
    stdout: '',
    stderr: '',
    out: (t: string) => void (io.stdout += t),
    err: (t: string) => void (io.stderr += t),
  };
  return io;
}

describe('amender test', () => {
  const suites = ['json6902', 'strategic-merge', 'foreach', 'stale-context', 'match', 'context', 'failure', 'autogen'];
  for (const suite of suites) {
    it(suite, async () => {
      const io = capturingIO();
      const code = await runCli(['test', `test/fixtures/kyverno/${suite}`], io);
      expect(io.stdout).not.toContain('FAIL');
      expect(io.stdout).toMatch(/\n\d+ passed, 0 failed\n$/);
      expect(io.stderr).toBe('');
      expect(code).toBe(0);
    });
  }
});

describe('amender apply', () => {
  const args = ['apply', '--policies', 'test/fixtures/kyverno/stale-context/policies.yaml', '--resource', 'test/fixtures/kyverno/stale-context/pod.yaml'];

  it('prints the resource after both policies, elementIndex counted on the prepended list', async () => {
    const io = capturingIO();
    expect(await runCli(args, io)).toBe(0);
    expect(parse(io.stdout).spec.volumes).toEqual([
      { name: 'extra-config', configMap: { name: 'extra-cm' } },
      { name: 'extra-cache', emptyDir: { medium: '', sizeLimit: '250Mi' } },
      { name: 'data', configMap: { name: 'app-data' } },
      { name: 'cache', emptyDir: { sizeLimit: '250Mi' } },
    ]);
  });

  it('--patch prints the reply patch: a diff the API server can apply', async () => {
    const io = capturingIO();
    expect(await runCli([...args, '--patch'], io)).toBe(0);
    const patch = JSON.parse(io.stdout) as { op: string; path: string }[];
    expect(patch.length).toBeGreaterThan(0);
    // Relaxed Kyverno paths (negative indices, missing parents) never reach the reply.
    for (const op of patch) expect(op.path).not.toMatch(/\/-\d/);
  });

  it('a Fail policy whose rule fails is reported and the request denied', async () => {
    const io = capturingIO();
    const code = await runCli(
      ['apply', '--policies', 'test/fixtures/kyverno/failure/policies.yaml', '--resource', 'test/fixtures/kyverno/stale-context/pod.yaml', '--user', 'strict-1'],
      io,
    );
    expect(code).toBe(1);
    expect(io.stderr).toContain('rule needs-a-team failed: variable substitution failed: failed to resolve request.object.metadata.annotations.team');
  });
});
