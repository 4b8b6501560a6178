/**
 * Go's encoding/pem.Decode (src/go/pem.ts), with the data of Go's own pem_test.go (pem/pem-data.json:
 * TestDecode's text, whose blocks are found one after the other, and TestBadDecode's inputs), and texts of
 * many begin lines, which must take time linear in their length.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pemDecode } from '../../src/go/pem.js';

const PEM_DATA = JSON.parse(readFileSync(new URL('./pem/pem-data.json', import.meta.url), 'utf8')) as string;

/** The text after the first occurrence of `marker` (Go's TestDecode decodes the remainder of each block). */
const after = (text: string, marker: string): string => text.slice(text.indexOf(marker) + marker.length);

/** The bytes of base64 `lines` (spaces and tabs dropped), as the expected block bytes. */
const base64Bytes = (lines: string): number[] => [...Buffer.from(lines.replace(/[ \t]/g, ''), 'base64')];

describe('pemDecode as encoding/pem.Decode', () => {
  it("finds the blocks of Go's TestDecode text, skipping what does not decode", () => {
    const certificate = pemDecode(PEM_DATA);
    expect(certificate?.type).toBe('CERTIFICATE');
    const certBody = after(PEM_DATA, '-----BEGIN CERTIFICATE----- \n').split('\n-----END CERTIFICATE-----')[0];
    expect([...certificate!.bytes]).toEqual(base64Bytes(certBody));
    expect([...certificate!.bytes.subarray(0, 8)]).toEqual([0x30, 0x82, 0x03, 0xe9, 0x30, 0x82, 0x03, 0x52]);
    expect(certificate!.bytes.length).toBe(0x3e9 + 4);

    const afterCertificate = after(PEM_DATA, '-----END CERTIFICATE-----   \n');
    const privateKey = pemDecode(afterCertificate);
    expect(privateKey?.type).toBe('RSA PRIVATE KEY');
    const keyBody = after(afterCertificate, 'DEK-Info: DES-EDE3-CBC,80C7C7A09690757A  \t\n').split('\n-----END RSA PRIVATE KEY-----')[0];
    expect([...privateKey!.bytes]).toEqual(base64Bytes(keyBody));

    let rest = after(afterCertificate, '-----END RSA PRIVATE KEY-----');
    for (let i = 0; i < 3; i++) {
      expect(pemDecode(rest)).toEqual({ type: 'EMPTY', bytes: new Uint8Array() });
      rest = after(rest, '-----END EMPTY-----');
    }
    // The first HEADERS block lacks the blank line after its header; the second is read.
    expect(pemDecode(rest)).toEqual({ type: 'HEADERS', bytes: new Uint8Array() });
  });

  it("refuses Go's TestBadDecode inputs", () => {
    for (const input of [
      '\n-----BEGIN FOO-----\ndGVzdA==\n-----END FOO----',
      '\n-----BEGIN FOO-----\ndGVzdA==\n-----END FOO------',
      '\n-----BEGIN FOO-----\ndGVzdA==\n-----END FOO----- .',
      '\n-----BEGIN FOO-----\ndGVzdA==\n-----END BAR-----',
      '\n-----BEGIN FOO-----\ndGVzdA==\n-----ENDBAR-----',
    ]) {
      expect(pemDecode(input), JSON.stringify(input)).toBeUndefined();
    }
    expect(pemDecode('\n-----BEGIN FOO-----\ndGVzdA==\n-----END FOO-----  \t\r\n')).toEqual({ type: 'FOO', bytes: new TextEncoder().encode('test') });
  });

  it('reads a begin line at the start of a line only, and goes on past a block that does not decode', () => {
    expect(pemDecode('x-----BEGIN FOO-----\ndGVzdA==\n-----END FOO-----')).toBeUndefined();
    const bad = '-----BEGIN FOO-----\nd*VzdA==\n-----END FOO-----\n';
    expect(pemDecode(`${bad}-----BEGIN BAR-----\ndGVzdA==\n-----END BAR-----`)).toEqual({ type: 'BAR', bytes: new TextEncoder().encode('test') });
    // Unpadded base64 is not StdEncoding.
    expect(pemDecode('-----BEGIN FOO-----\ndGVzdA\n-----END FOO-----')).toBeUndefined();
  });

  it('is linear in a text of many begin lines (Go searches the rest of the text from each one)', () => {
    const begins = '-----BEGIN CERTIFICATE-----\n'.repeat(200_000);
    expect(pemDecode(begins)).toBeUndefined();
    // The last begin line and the end line make an empty block.
    expect(pemDecode(`${begins}-----END CERTIFICATE-----\n`)).toEqual({ type: 'CERTIFICATE', bytes: new Uint8Array() });
    expect(pemDecode(`${'-----BEGIN T-----\nQUJD\n'.repeat(100_000)}-----END T-----\n`)).toEqual({ type: 'T', bytes: new TextEncoder().encode('ABC') });
  });
});
