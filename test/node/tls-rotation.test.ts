/**
 * The built Node server follows a rotated TLS certificate without a signal (src/adapters/node-tls-reload.ts):
 * a Kubernetes Secret volume's atomic swap, a pair written one file at a time, a file missing for a moment,
 * and AMENDER_TLS_RELOAD_SECONDS=0 (SIGHUP only). Each new connection is checked against the CA that must
 * now verify it, as the API server's client would.
 */
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h2Request } from './clients.js';
import { ensureBuilt } from './built.js';
import { startBundle, waitFor, type Running } from './bundle.js';
import { makeExpiredTestPki, makeTestPki, type TestPki } from './tls.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let first: TestPki;
let second: TestPki;
beforeAll(() => {
  ensureBuilt();
  first = makeTestPki(2);
  second = makeTestPki(5); // expires three days later than the first: the metric tells which is in force
});
afterAll(() => {
  first?.dispose();
  second?.dispose();
});

const expiry = (pki: TestPki) => Date.parse(new X509Certificate(pki.cert).validTo) / 1000;

/** A GET over a new HTTP/2 connection that trusts only `pki`'s CA: the status, or the TLS error's code. */
async function healthz(server: Running, pki: TestPki): Promise<number | string> {
  const port = new URL(server.url).port;
  try {
    return (await h2Request(`https://localhost:${port}`, '/healthz', pki.ca, { method: 'GET' })).status;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

async function metric(server: Running, name: string): Promise<string[]> {
  const port = new URL(server.url).port;
  const text = (await h2Request(`https://localhost:${port}`, '/metrics', second.ca, { method: 'GET' }).catch(() =>
    h2Request(`https://localhost:${port}`, '/metrics', first.ca, { method: 'GET' }),
  )).body;
  return text.split('\n').filter((line) => line.startsWith(name));
}

const lines = (server: Running, msg: string) => server.lines.filter((l) => l.msg === msg);

/** A folder laid out as the kubelet mounts a Secret: tls.crt -> ..data/tls.crt, ..data -> ..<version>. */
function secretVolume(pki: TestPki) {
  const dir = mkdtempSync(join(tmpdir(), 'amender-secret-'));
  let version = 0;
  const publish = (from: TestPki) => {
    const name = `..2026_12_05_v${++version}`;
    mkdirSync(join(dir, name));
    copyFileSync(join(from.dir, 'server.crt'), join(dir, name, 'tls.crt'));
    copyFileSync(join(from.dir, 'server.key'), join(dir, name, 'tls.key'));
    symlinkSync(name, join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data')); // the atomic swap
    if (version > 1) rmSync(join(dir, `..2026_12_05_v${version - 1}`), { recursive: true });
  };
  publish(pki);
  symlinkSync('..data/tls.crt', join(dir, 'tls.crt'));
  symlinkSync('..data/tls.key', join(dir, 'tls.key'));
  return { dir, publish, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('the built Node server follows a rotated certificate', () => {
  it('serves the new pair once the kubelet has swapped the Secret volume, without a signal', async () => {
    const volume = secretVolume(first);
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: join(volume.dir, 'tls.crt'), AMENDER_TLS_KEY_FILE: join(volume.dir, 'tls.key'), AMENDER_TLS_RELOAD_SECONDS: '1' });
    try {
      expect(lines(server, 'listening')[0]).toMatchObject({ tls: true, tlsReloadSeconds: 1 });
      expect(await healthz(server, first)).toBe(200);
      expect(await metric(server, 'amender_tls_certificate_expiry_timestamp_seconds')).toEqual([`amender_tls_certificate_expiry_timestamp_seconds ${expiry(first)}`]);
      // Looks at unchanged files change nothing and log nothing.
      await sleep(1500);
      expect(lines(server, 'tls certificate reloaded')).toEqual([]);

      volume.publish(second);
      await waitFor('the reload', () => lines(server, 'tls certificate reloaded').length > 0);
      expect(lines(server, 'tls certificate reloaded')).toEqual([
        expect.objectContaining({ level: 'info', reason: 'changed', certFile: join(volume.dir, 'tls.crt'), expires: new Date(expiry(second) * 1000).toISOString() }),
      ]);
      expect(await healthz(server, second)).toBe(200);
      expect(await healthz(server, first)).not.toBe(200); // the old CA no longer verifies new connections
      expect(await metric(server, 'amender_tls_certificate_expiry_timestamp_seconds')).toEqual([`amender_tls_certificate_expiry_timestamp_seconds ${expiry(second)}`]);
      expect(await metric(server, 'amender_tls_reloads_total')).toEqual(['amender_tls_reloads_total{result="applied"} 1', 'amender_tls_reloads_total{result="failed"} 0']);
      expect(server.stderr()).toBe('');
    } finally {
      await server.stop();
      volume.dispose();
    }
  });

  it('keeps the pair in force while a new pair is half written or a file is missing, logging each failure once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'amender-tls-'));
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    copyFileSync(join(first.dir, 'server.crt'), cert);
    copyFileSync(join(first.dir, 'server.key'), key);
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: cert, AMENDER_TLS_KEY_FILE: key, AMENDER_TLS_RELOAD_SECONDS: '1' });
    const failures = () => lines(server, 'tls certificate reload failed; the previous one stays');
    try {
      // The certificate is written before its key: the server refuses the mismatched pair, the old one serves.
      copyFileSync(join(second.dir, 'server.crt'), cert);
      await waitFor('a failure logged', () => failures().length > 0);
      expect(failures()[0]).toMatchObject({ level: 'error', reason: 'changed', certFile: cert, keyFile: key });
      expect(failures()[0].error).toBe(`the private key in ${key} does not belong to the certificate in ${cert} (CN=localhost)`);
      expect(await healthz(server, first)).toBe(200);
      await sleep(2500); // two more looks at the same broken pair: not logged again
      expect(failures()).toHaveLength(1);
      // Asked for (SIGHUP), a reload answers every time, even for the pair already refused; the looks
      // that follow do not repeat it.
      server.child.kill('SIGHUP');
      await waitFor('a failure logged', () => failures().length > 1);
      server.child.kill('SIGHUP');
      await waitFor('a failure logged', () => failures().length > 2);
      expect(failures().slice(1).map((l) => l.reason)).toEqual(['SIGHUP', 'SIGHUP']);
      await sleep(2500);
      expect(failures()).toHaveLength(3);
      expect(await healthz(server, first)).toBe(200);

      copyFileSync(join(second.dir, 'server.key'), key);
      await waitFor('the reload', () => lines(server, 'tls certificate reloaded').length > 0);
      expect(await healthz(server, second)).toBe(200);

      // A file gone for a while (a non-atomic writer): logged once, the pair in force serves; back as it
      // was, nothing is reloaded.
      unlinkSync(cert);
      await waitFor('a failure logged', () => failures().length > 3);
      expect(failures()[3].error).toMatch(/ENOENT/);
      await sleep(2500);
      expect(failures()).toHaveLength(4);
      expect(await healthz(server, second)).toBe(200);
      copyFileSync(join(second.dir, 'server.crt'), cert);
      await sleep(2500);
      expect(lines(server, 'tls certificate reloaded')).toHaveLength(1);
      expect(await metric(server, 'amender_tls_reloads_total')).toEqual(['amender_tls_reloads_total{result="applied"} 1', 'amender_tls_reloads_total{result="failed"} 4']);
      expect(await healthz(server, second)).toBe(200);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps a valid pair in force when an expired one is written in its place, logging it once', async () => {
    const expired = makeExpiredTestPki();
    const volume = secretVolume(first);
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: join(volume.dir, 'tls.crt'), AMENDER_TLS_KEY_FILE: join(volume.dir, 'tls.key'), AMENDER_TLS_RELOAD_SECONDS: '1' });
    const failures = () => lines(server, 'tls certificate reload failed; the previous one stays');
    try {
      // An old Secret synced again: a matching pair, but no client accepts its certificate any more.
      volume.publish(expired);
      await waitFor('a failure logged', () => failures().length > 0);
      expect(failures()).toEqual([expect.objectContaining({ level: 'error', reason: 'changed', error: 'the certificate expired at 2020-01-02T00:00:00.000Z' })]);
      expect(lines(server, 'tls certificate reloaded')).toEqual([]);
      expect(await healthz(server, first)).toBe(200);
      await sleep(2500); // more looks at the same pair: not logged again
      expect(failures()).toHaveLength(1);
      expect(await metric(server, 'amender_tls_certificate_expiry_timestamp_seconds')).toEqual([`amender_tls_certificate_expiry_timestamp_seconds ${expiry(first)}`]);
      expect(await metric(server, 'amender_tls_reloads_total')).toEqual(['amender_tls_reloads_total{result="applied"} 0', 'amender_tls_reloads_total{result="failed"} 1']);

      // The renewed pair that follows is applied.
      volume.publish(second);
      await waitFor('the reload', () => lines(server, 'tls certificate reloaded').length > 0);
      expect(await healthz(server, second)).toBe(200);
    } finally {
      await server.stop();
      volume.dispose();
      expired.dispose();
    }
  });

  it('with AMENDER_TLS_RELOAD_SECONDS=0 changes its pair only on SIGHUP', async () => {
    const volume = secretVolume(first);
    const server = await startBundle({ AMENDER_TLS_CERT_FILE: join(volume.dir, 'tls.crt'), AMENDER_TLS_KEY_FILE: join(volume.dir, 'tls.key'), AMENDER_TLS_RELOAD_SECONDS: '0' });
    try {
      volume.publish(second);
      await sleep(2500);
      expect(lines(server, 'tls certificate reloaded')).toEqual([]);
      expect(await healthz(server, first)).toBe(200);
      server.child.kill('SIGHUP');
      await waitFor('the reload', () => lines(server, 'tls certificate reloaded').length > 0);
      expect(lines(server, 'tls certificate reloaded')[0]).toMatchObject({ reason: 'SIGHUP' });
      expect(await healthz(server, second)).toBe(200);
    } finally {
      await server.stop();
      volume.dispose();
    }
  });
});
