/**
 * What `npm start` prints once the built server listens (`--print-example`): where it serves and how to
 * send it the sample review. It names the policies it serves: the bundled ones by default, the sources
 * of AMENDER_POLICY_SOURCES when they are others.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './built.js';
import { startBundle, waitFor } from './bundle.js';

beforeAll(() => ensureBuilt());

async function exampleOf(env: Record<string, string>): Promise<string> {
  const server = await startBundle(env, { args: ['--print-example'], until: 'listening' });
  try {
    await waitFor('the example on standard error', () => server.stderr().includes('Stop with Ctrl-C'));
    return server.stderr();
  } finally {
    await server.stop();
  }
}

describe('npm start’s example', () => {
  it('names the bundled policies by default, with the curl line for the sample review', async () => {
    const text = await exampleOf({});
    expect(text).toMatch(/Amender is serving the bundled policies \(policies\/\) at http:\/\/127\.0\.0\.1:\d+\n/);
    expect(text).toContain("--data-binary @test/fixtures/reviews/pod-create.json http://127.0.0.1:");
  }, 30_000);

  it('names the sources it serves when AMENDER_POLICY_SOURCES points elsewhere', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amender-example-'));
    try {
      writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n');
      const text = await exampleOf({ AMENDER_POLICY_SOURCES: `file://${dir}` });
      expect(text).toContain(`Amender is serving the policies of file://${dir} at http://127.0.0.1:`);
      expect(text).not.toContain('bundled policies');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
