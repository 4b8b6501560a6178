/**
 * `amender test DIR` where DIR holds a link back to a folder it is in (`a/up -> ..`): the walk followed it
 * round and round until the depth limit and failed the whole run ("folders nested deeper than 32 levels"),
 * though `kyverno test` runs the tests (test/load.go loadLocalTest descends only into real folders,
 * os.ReadDir's IsDir being false for a link). The link is now left out with a note; the tests run once.
 * Run as a user runs it: src/cli/bin.ts in a child process, on real files.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addTeamPolicy } from './team-policy.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'amender-loop-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const POLICY = addTeamPolicy(['Pod']);
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
`;
const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [pod.yaml]
results:
  - {policy: add-team, rule: team, kind: Pod, resources: [web], result: pass}
`;

describe('amender test on a folder with a link loop', () => {
  it('leaves the link out, says so, and runs each test once', () => {
    mkdirSync(join(dir, 'suite'));
    for (const [name, text] of [['policy.yaml', POLICY], ['pod.yaml', POD], ['kyverno-test.yaml', TEST]]) writeFileSync(join(dir, 'suite', name), text);
    symlinkSync('..', join(dir, 'suite', 'up'));
    const r = spawnSync(process.execPath, ['--import', 'tsx', `${ROOT}src/cli/bin.ts`, 'test', dir], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toContain(`amender test: note: ${join(dir, 'suite', 'up')} -> `);
    expect(r.stdout.match(/Loading test t /g)).toHaveLength(1);
    expect(r.stdout).toContain('Test Summary: 1 tests passed and 0 tests failed');
    expect(r.status).toBe(0);
  });
});
