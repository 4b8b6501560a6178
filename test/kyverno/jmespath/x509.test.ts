/** x509_decode against the expected objects of Kyverno's Test_x509Decode (transcribed in ./x509/). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evaluate, search } from '../../../src/kyverno/jmespath/index.js';

const file = (name: string) => readFileSync(new URL(`./x509/${name}`, import.meta.url), 'utf8');
const certs = { svc: file('kyverno-svc.pem'), xx: file('xx.pem'), csr: file('digicert.csr.pem') };
const decode = (pem: string) => search('x509_decode(pem)', { pem }) as Record<string, unknown>;
const b64 = (s: string) => search('base64_encode(@)', s) as string;

describe('x509_decode', () => {
  it('decodes a certificate to the object Kyverno returns', () => {
    const expected = JSON.parse(file('kyverno-svc.expected.json'));
    expect(search('x509_decode(pem)', { pem: certs.svc })).toEqual(expected);
    // the same certificate base64-encoded, as Kyverno's test does, and without the final newline
    expect(search('x509_decode(base64_decode(b))', { b: b64(certs.svc) })).toEqual(expected);
    expect(search('x509_decode(pem)', { pem: certs.svc.trimEnd() })).toEqual(expected);
  });
  it('decodes the second certificate of Kyverno’s test to the object Kyverno returns', () => {
    expect(decode(certs.xx)).toEqual(JSON.parse(file('xx.expected.json')));
  });
  it('decodes the second certificate of Kyverno’s test (names, serial, key usage)', () => {
    const r = search('x509_decode(pem)', { pem: certs.xx }) as Record<string, unknown>;
    expect(r.SerialNumber).toBe(520089955419326249038486015063014459614455897759);
    expect(r.Version).toBe(3);
    expect(r.KeyUsage).toBe(96);
    expect(r.NotBefore).toBe('2018-02-02T12:38:00Z');
    expect(r.NotAfter).toBe('2023-02-01T12:38:00Z');
    expect(r.SubjectKeyId).toBe('pdxvnZu/qiqcP4P19M0UdkvwhbE=');
    expect(r.Issuer).toEqual({
      Country: ['xx'],
      Organization: ['x'],
      OrganizationalUnit: ['x'],
      Locality: ['x'],
      Province: ['x'],
      StreetAddress: null,
      PostalCode: null,
      SerialNumber: '',
      CommonName: '',
      Names: [
        { Type: [2, 5, 4, 6], Value: 'xx' },
        { Type: [2, 5, 4, 8], Value: 'x' },
        { Type: [2, 5, 4, 7], Value: 'x' },
        { Type: [2, 5, 4, 10], Value: 'x' },
        { Type: [2, 5, 4, 11], Value: 'x' },
      ],
      ExtraNames: null,
    });
    expect((r.PublicKey as { N: string }).N).toBe(
      '26496562094779491076553211809422098021949952483515703281510813808490953126660362388109632773224118754702902108388229193869554055094778177099185065933983949693842239539154549752097759985799130804083586220803335221114269832081649712810220640441076536231140807229028981655981643835428138719795509959624793308640711388215921808921435203036357847686892066058381787405708754578605922703585581205444932036212009496723589206933777338978604488048677611723712498345752655171502746679687404543368933776929978831813434358099337112479727796701588293884856604804625411358577626503349165930794262171211166398339413648296787152727521',
    );
  });
  // Go 1.22-1.24 fields of x509.Certificate, which Kyverno (go 1.26) returns: Policies (OIDs as text,
  // any size), PolicyMappings, and the policy constraint / inhibitAnyPolicy values with their Zero flags
  // (crypto/x509 parser.go processExtensions). The certificate was made with openssl for this test.
  it('decodes the certificate policy extensions as Go 1.26 does', () => {
    const r = decode(file('policy-ca.pem'));
    expect(r.Policies).toEqual(['2.23.140.1.2.1', '1.3.6.1.4.1.99999.2147483648', '2.999.12345678901234567890']);
    // asn1.ObjectIdentifier holds 31-bit arcs: the two other policies are left out
    expect(r.PolicyIdentifiers).toEqual([[2, 23, 140, 1, 2, 1]]);
    expect(r.PolicyMappings).toEqual([
      { IssuerDomainPolicy: '2.23.140.1.2.1', SubjectDomainPolicy: '1.2.3.4' },
      { IssuerDomainPolicy: '1.3.6.1.4.1.11129.2.5.1', SubjectDomainPolicy: '2.5.29.32.0' },
    ]);
    expect([r.RequireExplicitPolicy, r.RequireExplicitPolicyZero]).toEqual([0, true]);
    expect([r.InhibitPolicyMapping, r.InhibitPolicyMappingZero]).toEqual([3, false]);
    expect([r.InhibitAnyPolicy, r.InhibitAnyPolicyZero]).toEqual([0, true]);
    // the three extensions are critical, and Go handles them
    expect(r.UnhandledCriticalExtensions).toBeNull();
    expect(Object.keys(r).slice(-9)).toEqual([
      'PolicyIdentifiers', 'Policies', 'InhibitAnyPolicy', 'InhibitAnyPolicyZero', 'InhibitPolicyMapping',
      'InhibitPolicyMappingZero', 'RequireExplicitPolicy', 'RequireExplicitPolicyZero', 'PolicyMappings',
    ]);
  });
  it('an empty certificate policies sequence: Policies null, PolicyIdentifiers an empty list (made, not nil)', () => {
    const r = decode(file('policies-empty.pem'));
    expect(r.Policies).toBeNull();
    expect(r.PolicyIdentifiers).toEqual([]);
  });
  it('refuses a duplicate policy and a padded policy constraint, as ParseCertificate does', () => {
    for (const [name, msg] of [
      ['policies-dup.pem', 'x509: invalid certificate policies'],
      ['policies-bad.pem', 'x509: invalid policy constraints extension'],
    ]) {
      const r = evaluate('x509_decode(p)', { p: file(name) });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toContain(msg);
    }
  });
  it('a certificate request does not parse the policy extensions it asks for (ParseCertificateRequest)', () => {
    const r = decode(file('policies-dup.csr.pem'));
    expect((r.Subject as Record<string, unknown>).CommonName).toBe('csr-dup-policies');
    expect(r).not.toHaveProperty('Policies');
    expect((r.Extensions as unknown[]).length).toBe(2);
  });
  it('a critical SAN extension with no name Go reads (a directory name) is unhandled, as processExtensions says', () => {
    const r = decode(file('san-dirname.pem'));
    expect(r.DNSNames).toBeNull();
    expect(r.UnhandledCriticalExtensions).toEqual([[2, 5, 29, 17]]);
  });
  it('decodes a certificate request', () => {
    expect(search('x509_decode(pem)', { pem: certs.csr })).toEqual(JSON.parse(file('digicert.csr.expected.json')));
  });
  it('reports bad input clearly', () => {
    for (const [pem, msg] of [
      ['xyz', 'failed to decode PEM block'],
      ['-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n', 'PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST'],
      ['-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n', 'x509'],
    ]) {
      const r = evaluate('x509_decode(p)', { p: pem });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toContain(msg);
    }
  });
  it('finds the first block that decodes among many begin lines, in time linear in the text', () => {
    // A begin line repeated 100,000 times without an end: a RegExp searched the rest of the text for an
    // end from every one (40,000 took 7.4 s); and a certificate after begin lines of another type, and
    // after begin lines each followed by the end of another type.
    const r = evaluate('x509_decode(p)', { p: '-----BEGIN CERTIFICATE-----\n'.repeat(100_000) });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain('failed to decode PEM block');
    const otherBegins = '-----BEGIN T-----\n'.repeat(100_000);
    expect(search('x509_decode(p)', { p: `${otherBegins}${certs.svc}` })).toEqual(JSON.parse(file('kyverno-svc.expected.json')));
    const otherBlocks = Array.from({ length: 10_000 }, (_, i) => `-----BEGIN T${i}-----\n-----END T${i + 1}-----\n`).join('');
    expect(search('x509_decode(p)', { p: `${otherBlocks}${certs.svc}` })).toEqual(JSON.parse(file('kyverno-svc.expected.json')));
  });
});

describe('x509_decode in a Kyverno conformance vector', () => {
  // chainsaw validate/clusterpolicy/standard/enforce-deprecated/csr: the label is the CSR's common name
  it('reads the common name of a base64-encoded CSR', () => {
    const request = b64(file('angela.csr.pem'));
    const expr = 'x509_decode(base64_decode(request.object.spec.request)).Subject.CommonName | to_string(@)';
    expect(search(expr, { request: { object: { spec: { request } } } })).toBe('angela');
    const decoded = search('x509_decode(base64_decode(@))', request) as Record<string, unknown>;
    expect(decoded.Version).toBe(0);
    expect(decoded.PublicKeyAlgorithm).toBe(1);
  });
});
