/**
 * `amender webhook-config --ca-bundle FILE` refuses a bundle the API server could not load. kube-apiserver
 * stores any caBundle, then fails every call to the webhook when its client loads it (CertPool
 * AppendCertsFromPEM finds no certificate: "unable to load root certificates"); under failurePolicy Fail
 * that blocks every request the rules cover. Before, any text holding a BEGIN CERTIFICATE line was taken.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';
import { TEST_CA_PEM } from '../fixtures/test-ca.js';

const POLICY = addTeamPolicy(['Pod']);
const CA = TEST_CA_PEM;
const GARBLED = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ==\n-----END CERTIFICATE-----\n';

async function run(bundle: string) {
  const io = fakeIO({ 'p.yaml': POLICY, 'ca.crt': bundle });
  const code = await runCli(['webhook-config', '--url', 'https://amender.example.com/mutate', '--policies', 'p.yaml', '--ca-bundle', 'ca.crt'], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('webhook-config --ca-bundle', () => {
  it('takes a bundle with a readable certificate, as it is', async () => {
    const r = await run(CA);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`caBundle: ${Buffer.from(CA).toString('base64')}`);
    expect(r.stderr).not.toContain('warning: --ca-bundle');
    expect(r.stderr).toContain('amender webhook-config: 1 policy contributes 4 rules:');
  });

  it('refuses one whose certificates cannot be read', async () => {
    const r = await run(GARBLED);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('amender webhook-config: --ca-bundle ca.crt: no certificate in it can be read as X.509, so the API server could not call the webhook');
  });

  it('warns of an unreadable certificate beside a readable one (the API server skips it)', async () => {
    const r = await run(GARBLED + CA);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: --ca-bundle ca.crt: certificate 1 of 2 cannot be read as X.509; the API server skips it');
  });

  it('says when the file is the base64 of a bundle', async () => {
    const r = await run(Buffer.from(CA).toString('base64'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--ca-bundle ca.crt: not a PEM certificate bundle (it is base64 of one: decode it first, e.g. base64 -d)');
  });
});
