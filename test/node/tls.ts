/** A throwaway CA and a server certificate it signed, for HTTPS tests (made with the openssl CLI). */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  ca: string;
  cert: string;
  key: string;
  /** Directory holding ca.crt, server.crt and server.key. */
  dir: string;
  dispose(): void;
}

/** `days`: the certificates' validity, so that two PKIs made together can be told apart by expiry. */
export function makeTestPki(days = 2): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'amender-pki-'));
  const at = (f: string) => join(dir, f);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.crt'), '-subj', '/CN=amender test CA', '-days', String(days),
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  ssl('req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(at('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n');
  ssl('x509', '-req', '-in', at('server.csr'), '-CA', at('ca.crt'), '-CAkey', at('ca.key'), '-CAcreateserial',
    '-out', at('server.crt'), '-days', String(days), '-extfile', at('ext.cnf'));
  return {
    ca: readFileSync(at('ca.crt'), 'utf8'),
    cert: readFileSync(at('server.crt'), 'utf8'),
    key: readFileSync(at('server.key'), 'utf8'),
    dir,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A throwaway CA and a server certificate it signed that expired long ago (2020), for a rotation to a
 * pair no client accepts. `openssl ca`, which takes explicit dates (`x509 -days` cannot go back).
 */
export function makeExpiredTestPki(): TestPki {
  const pki = makeTestPki();
  const at = (f: string) => join(pki.dir, f);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: ['ignore', 'ignore', 'pipe'] });
  mkdirSync(at('db'));
  writeFileSync(at('db/index.txt'), '');
  writeFileSync(at('db/serial'), '01\n');
  writeFileSync(at('ca.cnf'), [
    '[ca]', 'default_ca=c', '[c]', 'dir=.', 'database=db/index.txt', 'serial=db/serial', 'new_certs_dir=db', 'default_md=sha256',
    'policy=p', 'copy_extensions=none', 'x509_extensions=ext', '[p]', 'commonName=supplied',
    '[ext]', 'subjectAltName=DNS:localhost,IP:127.0.0.1', 'extendedKeyUsage=serverAuth', 'keyUsage=critical,digitalSignature', '',
  ].join('\n'));
  ssl('ca', '-batch', '-config', at('ca.cnf'), '-cert', at('ca.crt'), '-keyfile', at('ca.key'), '-in', at('server.csr'), '-out', at('server.crt'),
    '-startdate', '20200101000000Z', '-enddate', '20200102000000Z', '-notext');
  return { ...pki, cert: readFileSync(at('server.crt'), 'utf8') };
}
