/**
 * x509_decode read a certificate's INTEGERs (serial number, RSA modulus) and OID subidentifiers with one
 * bigint shift per byte, which copies the growing value every time: a PEM with a 300 KB serial number (the
 * text of a Secret or a CSR in the review) took 51 s, 1 MB would take many minutes, in one call the
 * review deadline cannot interrupt. Go reads them in linear time (cryptobyte ReadASN1Integer,
 * big.Int.SetBytes). Now each is read at once from hex or binary text. Counted, not timed: BigInt is
 * watched for how often it is called.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/kyverno/jmespath/index.js';
import { watchBigInt } from './helpers/watch-bigint.js';

const bigInts = watchBigInt();

function length(n: number): number[] {
  if (n < 128) return [n];
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return [0x80 | bytes.length, ...bytes];
}
const tlv = (tag: number, content: number[]): number[] => [tag, ...length(content.length), ...content];

/** A certificate whose tbsCertificate stops after its serial number (x509 fails at the validity). */
function pemWithSerial(serial: number[]): string {
  const tbs = tlv(0x30, [...tlv(0xa0, tlv(0x02, [2])), ...tlv(0x02, serial), ...tlv(0x30, [])]);
  const der = tlv(0x30, [...tbs, ...tlv(0x30, []), ...tlv(0x03, [0])]);
  const body = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

describe('x509_decode of a certificate with a long serial number', () => {
  it('reads the 100 KB INTEGER at once, and fails where Go fails', () => {
    const r = evaluate('x509_decode(pem)', { pem: pemWithSerial(new Array<number>(100_000).fill(0x11)) });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain('x509: malformed validity');
    expect(bigInts.calls).toBeLessThan(100);
  });
});
