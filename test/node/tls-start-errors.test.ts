/**
 * A certificate and key that cannot serve HTTPS together stop the server at start (exit 2) with a message
 * that names the file at fault. It said "cannot listen on 127.0.0.1:0: error:05800074:x509 certificate
 * routines::key values mismatch": a port problem, naming neither file nor which of the two was wrong.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './built.js';
import { startBundle } from './bundle.js';
import { makeTestPki, type TestPki } from './tls.js';

let pki: TestPki;
let other: TestPki;

beforeAll(() => {
  ensureBuilt();
  pki = makeTestPki();
  other = makeTestPki();
  writeFileSync(join(pki.dir, 'not-pem.txt'), 'this is no PEM file\n');
}, 30_000);
afterAll(() => {
  pki?.dispose();
  other?.dispose();
});

/** What the server wrote on standard error when it refused to start with these files. */
async function refusal(certFile: string, keyFile: string): Promise<string> {
  const failed = await startBundle({ AMENDER_WORKERS: '0', AMENDER_TLS_CERT_FILE: certFile, AMENDER_TLS_KEY_FILE: keyFile }).then(
    async (running) => {
      await running.stop();
      return 'started';
    },
    (err: Error) => err.message,
  );
  expect(failed).toMatch(/exited with 2/);
  expect(failed).not.toContain('cannot listen');
  return failed;
}

describe('the built server given TLS files that cannot serve', () => {
  it('names the key that does not belong to the certificate', async () => {
    const keyFile = join(other.dir, 'server.key');
    const certFile = join(pki.dir, 'server.crt');
    expect(await refusal(certFile, keyFile)).toContain(`cannot serve HTTPS: the private key in ${keyFile} does not belong to the certificate in ${certFile} (CN=localhost)`);
  });

  it('names a certificate file that holds no certificate, and a key file that holds no key', async () => {
    const notPem = join(pki.dir, 'not-pem.txt');
    expect(await refusal(notPem, join(pki.dir, 'server.key'))).toContain(`cannot serve HTTPS: the certificate file ${notPem} holds no usable PEM certificate`);
    expect(await refusal(join(pki.dir, 'server.crt'), notPem)).toContain(`cannot serve HTTPS: the key file ${notPem} holds no usable PEM private key`);
  });

  it('says when the two paths are swapped', async () => {
    expect(await refusal(join(pki.dir, 'server.key'), join(pki.dir, 'server.crt'))).toContain('are the two paths swapped?');
  });
});
