/**
 * The built Node server (dist/node/main.js): HTTPS with HTTP/2 from environment variables, readiness,
 * logs, configuration errors, SIGTERM draining. (The review round trip is in https-review.test.ts.)
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h2Request } from './clients.js';
import { ROOT, SERVER_BUNDLE, ensureBuilt } from './built.js';
import { startBundle, type Running } from './bundle.js';
import { makeTestPki, type TestPki } from './tls.js';

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const { scriptCacheFile } = (await import(join(ROOT, 'scripts/compile-cache.mjs'))) as { scriptCacheFile(script: string, v8Version: string): string };

let pki: TestPki;
beforeAll(() => {
  ensureBuilt();
  pki = makeTestPki();
});
afterAll(() => pki?.dispose());

describe('the built Node server over HTTPS + HTTP/2', () => {
  let server: Running;
  beforeAll(async () => {
    server = await startBundle({ AMENDER_TLS_CERT_FILE: `${pki.dir}/server.crt`, AMENDER_TLS_KEY_FILE: `${pki.dir}/server.key` });
  });
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exit;
  });

  it('answers readiness and bad input over the same connection kind', async () => {
    const port = new URL(server.url).port;
    const ready = await h2Request(`https://localhost:${port}`, '/readyz', pki.ca, { method: 'GET' });
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ ready: true, source: 'bundled', counts: { mutatingAdmissionPolicies: 4 }, problems: [] });
    const bad = await h2Request(`https://localhost:${port}`, '/mutate', pki.ca, { body: '{"kind":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).message).toMatch(/^malformed JSON/);
  });

  it('logs the policy set it loaded and every request as JSON lines, and nothing on stderr', async () => {
    await waitFor(() => server.lines.some((l) => l.msg === 'request'));
    expect(server.lines.find((l) => l.msg === 'policy set applied')).toMatchObject({ level: 'info', msg: 'policy set applied', policySet: 'default', documents: 9, counts: { mutatingAdmissionPolicies: 4, params: 1, problems: 0 } });
    expect(server.lines.find((l) => l.msg === 'listening')).toMatchObject({ policySources: ['bundled'], clusters: [], refreshSeconds: 60 });
    // The build writes a code cache for the Node running it too (unless told to write none): this Node's is used.
    const ownCache = existsSync(join(dirname(SERVER_BUNDLE), scriptCacheFile('server.cjs', process.versions.v8)));
    expect(server.lines.find((l) => l.msg === 'listening')?.codeCache).toBe(ownCache ? 'used' : 'missing');
    expect(server.lines.find((l) => l.msg === 'policy sets loaded')).toMatchObject({ ready: ['default'], notReady: [] });
    expect(server.lines.filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(1);
    expect(server.stderr()).toBe('');
  });
});

describe('the built Node server, lifecycle', () => {
  it('drains and exits 0 on SIGTERM', async () => {
    const server = await startBundle({});
    const ok = await fetch(`${server.url}/healthz`);
    expect(ok.status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
    expect(server.lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['listening', 'shutting down', 'stopped']));
    expect(server.lines.find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
  });

  it('refuses a bad configuration with every problem and exit code 2', async () => {
    const child = spawn(process.execPath, [SERVER_BUNDLE], {
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', AMENDER_TLS_KEY_FILE: '/k' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(2);
    expect(stderr).toContain('amender: invalid configuration:');
    expect(stderr).toContain('PORT: expected an integer from 0 to 65535, got "eighty"');
    expect(stderr).toContain('AMENDER_TLS_CERT_FILE and AMENDER_TLS_KEY_FILE must be given together');
  });

  it('reads a config file named by AMENDER_CONFIG, with file:// policy sources', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amender-config-'));
    const file = join(dir, 'amender.yaml');
    writeFileSync(file, `port: 0\nhost: 127.0.0.1\nlogLevel: info\npolicySources: [file://${ROOT}policies/default-labels.yaml]\nlimits: {maxBodyBytes: 100}\n`);
    const server = await startBundle({ PORT: '', AMENDER_HOST: '', AMENDER_CONFIG: file });
    try {
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as any;
      expect(ready.counts).toMatchObject({ mutatingAdmissionPolicies: 1, mutatingAdmissionPolicyBindings: 1 });
      expect(ready.source).toBe(`file://${ROOT}policies/default-labels.yaml`);
      const big = await fetch(`${server.url}/mutate`, { method: 'POST', body: 'x'.repeat(101), headers: { 'content-type': 'application/json' } });
      expect(big.status).toBe(413);
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a config file written in UTF-16 with its byte-order mark, as it reads policy files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amender-config-'));
    const file = join(dir, 'amender.yaml');
    const text = `port: 0\nhost: 127.0.0.1\npolicySources: [file://${ROOT}policies/default-labels.yaml]\n`;
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const server = await startBundle({ PORT: '', AMENDER_HOST: '', AMENDER_CONFIG: file });
    try {
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as any;
      expect(ready.source).toBe(`file://${ROOT}policies/default-labels.yaml`);
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reloads a rotated certificate on SIGHUP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amender-tls-'));
    const next = makeTestPki();
    try {
      copyFileSync(`${pki.dir}/server.crt`, join(dir, 'tls.crt'));
      copyFileSync(`${pki.dir}/server.key`, join(dir, 'tls.key'));
      const server = await startBundle({ AMENDER_TLS_CERT_FILE: join(dir, 'tls.crt'), AMENDER_TLS_KEY_FILE: join(dir, 'tls.key') });
      try {
        const port = new URL(server.url).port;
        expect((await h2Request(`https://localhost:${port}`, '/healthz', pki.ca, { method: 'GET' })).status).toBe(200);
        copyFileSync(`${next.dir}/server.crt`, join(dir, 'tls.crt'));
        copyFileSync(`${next.dir}/server.key`, join(dir, 'tls.key'));
        server.child.kill('SIGHUP');
        await waitFor(() => server.lines.some((l) => l.msg === 'tls certificate reloaded'));
        expect((await h2Request(`https://localhost:${port}`, '/healthz', next.ca, { method: 'GET' })).status).toBe(200);
      } finally {
        server.child.kill('SIGTERM');
        await server.exit;
      }
    } finally {
      next.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves but is not ready when its policy source cannot be read', async () => {
    const server = await startBundle({ AMENDER_POLICY_SOURCES: 'file:///nonexistent/amender' });
    try {
      const r = await fetch(`${server.url}/readyz`);
      expect(r.status).toBe(503);
      expect((await r.json() as any).sourceErrors).toEqual(['file:///nonexistent/amender: /nonexistent/amender: no such file or folder (no policy set is loaded yet)']);
      expect(server.lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'policy sources unreadable', policySet: 'default' }));
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  });
});
