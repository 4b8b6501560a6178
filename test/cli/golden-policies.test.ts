/** The golden tests of the bundled policies (policies/tests), run by the built `amender test`. */
import { spawnSync } from 'node:child_process';
import { beforeAll, expect, it } from 'vitest';
import { CLI_BIN, ROOT, ensureBuilt } from '../node/built.js';

beforeAll(() => ensureBuilt());

it('amender test policies passes every case', () => {
  const r = spawnSync(process.execPath, [CLI_BIN, 'test', 'policies'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(r.stdout).not.toContain('FAIL');
  expect(r.stdout).toMatch(/\n(\d+) passed, 0 failed\n$/);
  const passed = Number(/\n(\d+) passed/.exec(r.stdout)![1]);
  expect(passed).toBeGreaterThanOrEqual(15);
  expect(r.status).toBe(0);
});
