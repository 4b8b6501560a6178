/**
 * `amender apply -o/--output PATH`, as `kyverno apply -o` (commands/apply/log.go checkMutateLogPath: a
 * path ending in .yaml/.yml is a file, anything else a folder, made if missing; processor/policy_processor.go
 * writes `<resource name>-mutated.yaml` in a folder). Run as a user runs it, on real files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addTeamPolicy } from './team-policy.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const POLICY = addTeamPolicy(['Pod', 'ConfigMap']);
const RESOURCES = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web}
data: {a: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ../../escape}
data: {a: b}
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'amender-output-'));
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  writeFileSync(join(dir, 'resources.yaml'), RESOURCES);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `amender apply` with the paths after `=` taken in the test's folder. */
function amender(...args: string[]) {
  const argv = args.map((a) => (a.startsWith('=') ? join(dir, a.slice(1)) : a));
  const r = spawnSync(process.execPath, ['--import', 'tsx', `${ROOT}src/cli/bin.ts`, 'apply', ...argv], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('amender apply --output', () => {
  it('a .yaml path: one file with every mutated resource, its folders made, nothing on stdout', () => {
    const r = amender('=policy.yaml', '-r', '=resources.yaml', '-o', '=out/all.yaml', '--quiet');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const text = readFileSync(join(dir, 'out', 'all.yaml'), 'utf8');
    expect(text.split('---\n')).toHaveLength(3);
    expect(text.match(/team: blue/g)).toHaveLength(3);
  });

  it('another path: a folder with <name>-mutated.yaml per name, a name never leaving it', () => {
    const r = amender('=policy.yaml', '-r', '=resources.yaml', '--output', '=mutated', '--quiet');
    expect(r.code).toBe(0);
    expect(readdirSync(join(dir, 'mutated')).sort()).toEqual(['___.._escape-mutated.yaml', 'web-mutated.yaml']);
    expect(readFileSync(join(dir, 'mutated', 'web-mutated.yaml'), 'utf8')).toMatch(/kind: Pod[\s\S]*---\n[\s\S]*kind: ConfigMap/);
    expect(existsSync(join(dir, '..', 'escape-mutated.yaml'))).toBe(false);
  });

  it('goes with the mutated resources, not with --patch', () => {
    const r = amender('=policy.yaml', '-r', '=resources.yaml', '-o', '=x.yaml', '--patch');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--output writes the mutated resources; --patch prints the patch: give one');
  });
});
