/**
 * `amender apply` prints YAML that kubectl reads back as printed. go-yaml v2 (kubectl's reader, and this
 * CLI's: src/go/yaml.ts) reads a plain scalar as a number by Go's `strconv.ParseInt(s, 0, 64)` with `_`
 * removed, so `0o17`, `0O17`, `0X1F`, `0B1`, `-_1` are integers, and `1e1_0` a float; the `yaml` package's YAML 1.1
 * schema does not know these forms and printed such strings plain, so a ConfigMap value "0o17" came back
 * as the number 15 (and a key "0o17" as "15"). They are now quoted.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POLICY = addTeamPolicy(['ConfigMap']);
const STRINGS = ['0o17', '0O17', '-0o7', '0o1_7', '0X1F', '0B1', '1e1_0', '-_1', '+_0'];
const CONFIG_MAP = `apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: shop}
data: {${STRINGS.map((s, i) => `k${i}: "${s}"`).join(', ')}, "0o17": key}
`;

async function apply(args: string[], stdin = '') {
  const io = fakeIO({ 'p.yaml': POLICY, 'cm.yaml': CONFIG_MAP }, stdin);
  const code = await runCli(['apply', '--policies', 'p.yaml', '--quiet', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('apply quotes strings go-yaml would read as numbers', () => {
  it('prints them quoted, and they read back as the same strings', async () => {
    const first = await apply(['--resource', 'cm.yaml']);
    expect(first.code).toBe(0);
    for (const s of STRINGS) expect(first.stdout).toContain(`: "${s}"\n`);
    expect(first.stdout).toContain('"0o17": key');
    // Read back (as kubectl reads the file): the same strings, printed the same.
    const again = await apply(['--resource', '-'], first.stdout);
    expect(again.stderr).toBe('');
    expect(again.stdout).toBe(first.stdout);
  });
});
