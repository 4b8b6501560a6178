/**
 * x509_decode's errors for a damaged outermost element, as Kyverno's Go returns them (crypto/x509):
 * ParseCertificate reads it with cryptobyte, so a certificate cut short or with a bad length is
 * 'x509: malformed certificate' (parser.go parseCertificate), never encoding/asn1's 'data truncated';
 * ParseCertificateRequest uses encoding/asn1's Unmarshal, so a request keeps asn1's own errors and
 * trailing data is `asn1.SyntaxError{Msg: "trailing data"}`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { x509Decode } from '../../src/go/index.js';

const dir = new URL('../kyverno/jmespath/x509/', import.meta.url);
const derOf = (file: string) => Buffer.from(readFileSync(new URL(file, dir), 'utf8').split('\n').filter((l) => l && !l.startsWith('-----')).join(''), 'base64');
const pemOf = (type: string, der: Uint8Array) => `-----BEGIN ${type}-----\n${Buffer.from(der).toString('base64')}\n-----END ${type}-----\n`;
const errorOf = (pem: string) => {
  try {
    x509Decode(pem);
    return 'decoded';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('x509_decode of a damaged outermost element', () => {
  const cert = derOf('kyverno-svc.pem');
  const csr = derOf('digicert.csr.pem');
  it('a certificate cut short, or whose length runs past the data, is a malformed certificate', () => {
    expect(errorOf(pemOf('CERTIFICATE', cert.subarray(0, cert.length - 10)))).toBe('x509: malformed certificate');
    expect(errorOf(pemOf('CERTIFICATE', cert.subarray(0, 1)))).toBe('x509: malformed certificate');
    const longer = Buffer.from(cert);
    longer[1] = 0x85; // five length bytes
    expect(errorOf(pemOf('CERTIFICATE', longer))).toBe('x509: malformed certificate');
  });
  it('a certificate followed by more data is trailing data', () => {
    expect(errorOf(pemOf('CERTIFICATE', Buffer.concat([cert, Buffer.from([0])])))).toBe('x509: trailing data');
  });
  it("a request keeps encoding/asn1's texts", () => {
    expect(errorOf(pemOf('CERTIFICATE REQUEST', csr.subarray(0, csr.length - 10)))).toBe('asn1: syntax error: data truncated');
    expect(errorOf(pemOf('CERTIFICATE REQUEST', Buffer.concat([csr, Buffer.from([0])])))).toBe('asn1: syntax error: trailing data');
  });
  it('the whole ones still decode', () => {
    expect(errorOf(pemOf('CERTIFICATE', cert))).toBe('decoded');
    expect(errorOf(pemOf('CERTIFICATE REQUEST', csr))).toBe('decoded');
  });
});
