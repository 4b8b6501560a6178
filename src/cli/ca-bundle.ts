/**
 * `webhook-config --ca-bundle FILE`: the API server keeps a caBundle it cannot read (the configuration's
 * validation does not parse it) and fails every call later, when its webhook client loads the bundle
 * (Go's CertPool.AppendCertsFromPEM: the CERTIFICATE blocks that parse as X.509, at least one, or
 * "unable to load root certificates"). Under failurePolicy Fail that blocks every request the rules
 * cover, so a bundle without one readable certificate is refused here, before it is applied.
 */
import { X509Certificate } from 'node:crypto';
import { CliInputError } from './errors.js';

const BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g;

function parses(block: string): boolean {
  try {
    new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

/** The warnings for a bundle the API server can use; a CliInputError naming `path` for one it cannot. */
export function checkCaBundle(pem: string, path: string): string[] {
  const blocks = pem.match(BLOCK) ?? [];
  if (blocks.length === 0) {
    const base64 = /^[A-Za-z0-9+/=\s]+$/.test(pem) && Buffer.from(pem.replace(/\s/g, ''), 'base64').toString('latin1').includes('-----BEGIN CERTIFICATE-----');
    throw new CliInputError(`--ca-bundle ${path}: not a PEM certificate bundle${base64 ? ' (it is base64 of one: decode it first, e.g. base64 -d)' : ''}`);
  }
  const bad = blocks.map((b, i) => (parses(b) ? -1 : i + 1)).filter((i) => i > 0);
  if (bad.length === blocks.length) {
    throw new CliInputError(`--ca-bundle ${path}: no certificate in it can be read as X.509, so the API server could not call the webhook (unable to load root certificates)`);
  }
  return bad.map((n) => `--ca-bundle ${path}: certificate ${n} of ${blocks.length} cannot be read as X.509; the API server skips it`);
}
