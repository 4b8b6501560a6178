/**
 * Why a certificate and key read for HTTPS cannot serve, in words that name the file at fault. Node's own
 * error is OpenSSL's (`PEM routines::no start line`, `x509 certificate routines::key values mismatch`): it
 * names neither file nor which of the two is wrong, and at start it surfaced as "cannot listen on
 * 0.0.0.0:8443", which sends an operator to look at the port.
 *
 * Loads node:crypto and node:tls when called (`require`: the built server is a script compiled by
 * vm.Script, where `import()` has no loader), so a server without TLS never loads them.
 */
import { createRequire } from 'node:module';
import type { KeyObject } from 'node:crypto';
import type { TlsMaterial } from './node.js';

export interface TlsPairFiles {
  certFile: string;
  keyFile: string;
}

/** OpenSSL's message without its code: `error:0480006C:PEM routines::no start line` → `PEM routines::no start line`. */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^error:[0-9A-F]+:/, '').split('\n')[0];
}

/** A hint when a file holds the other kind of PEM block: the two paths given the wrong way round. */
function holds(text: string | Buffer, what: 'certificate' | 'key'): boolean {
  const pem = Buffer.from(text).toString('latin1');
  return what === 'certificate' ? pem.includes('-----BEGIN CERTIFICATE-----') : /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/.test(pem);
}

/** The problem with `material` (read from `files`), or undefined when it serves HTTPS. */
export function tlsPairProblem(material: TlsMaterial, files: TlsPairFiles): string | undefined {
  const require = createRequire(import.meta.url);
  const { X509Certificate, createPrivateKey } = require('node:crypto') as typeof import('node:crypto');
  const { createSecureContext } = require('node:tls') as typeof import('node:tls');
  const swapped = holds(material.cert, 'key') && holds(material.key, 'certificate') ? ' (it holds a private key, and the key file a certificate: are the two paths swapped?)' : '';
  let certificate: InstanceType<typeof X509Certificate>;
  try {
    certificate = new X509Certificate(material.cert);
  } catch (err) {
    return `the certificate file ${files.certFile} holds no usable PEM certificate: ${reasonOf(err)}${swapped}`;
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(material.key);
  } catch (err) {
    return `the key file ${files.keyFile} holds no usable PEM private key: ${reasonOf(err)}`;
  }
  if (!certificate.checkPrivateKey(key)) {
    return `the private key in ${files.keyFile} does not belong to the certificate in ${files.certFile} (${certificate.subject.replace(/\n/g, ', ')})`;
  }
  try {
    createSecureContext({ cert: material.cert, key: material.key });
  } catch (err) {
    return `the certificate file ${files.certFile} and the key file ${files.keyFile} cannot serve together: ${reasonOf(err)}`;
  }
  return undefined;
}
