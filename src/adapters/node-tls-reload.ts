/**
 * Follows the Node server's certificate and key files, so that a rotated certificate is served without a
 * restart or a signal. cert-manager renews a certificate into its Secret and the kubelet swaps the mounted
 * files in place (an atomic rename of the `..data` link); a server that kept its first certificate would
 * fail every API server handshake once it expired, and every admission behind `failurePolicy: Fail` with it.
 *
 * Every `intervalMs` it looks at what the two paths resolve to (device, inode, size, times): when that
 * changed it reads both files and hands a changed pair to the server. A pair the server refuses (a key that
 * does not match its certificate, one file written before the other), an expired certificate while the
 * one in force is still valid, a file that cannot be read or is
 * missing for a moment: logged once, the pair in force stays, and the next change is tried again. SIGHUP
 * reads and applies both at once, changed or not (`reload`).
 */
import { readFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { CallbackCounter, CallbackGauge, type Logger, type Registry } from '../server/index.js';
import type { TlsMaterial } from './node.js';
import { tlsPairProblem } from './node-tls-pair.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface TlsReloaderOptions {
  files: TlsFiles;
  /** The pair the server started with. */
  initial: TlsMaterial;
  /** Puts a pair in force for new connections; throws when it refuses it. */
  apply: (material: TlsMaterial) => void;
  logger: Logger;
  /** Milliseconds between looks at the files; 0: none (only `reload`, on SIGHUP). */
  intervalMs: number;
  /** When the certificate expires (ms since the epoch), for the log and the metric; undefined when unknown. */
  expiryOf: (cert: string | Buffer) => number | undefined;
}

export interface TlsReloadStats {
  /** Pairs put in force after the start. */
  applied: number;
  /** Changes (or reloads) that left the pair in force as it was, each counted once. */
  failed: number;
  /** Expiry of the certificate in force (ms since the epoch), when known. */
  expiresAt?: number;
}

export interface TlsReloader {
  /** Reads both files and applies them now, changed or not (SIGHUP). */
  reload(reason: string): Promise<void>;
  stats(): TlsReloadStats;
  stop(): void;
}

const sameBytes = (a: string | Buffer, b: string | Buffer) => Buffer.from(a).equals(Buffer.from(b));
const samePair = (a: TlsMaterial, b: TlsMaterial) => sameBytes(a.cert, b.cert) && sameBytes(a.key, b.key);

/** What a path resolves to, as far as a rotation can tell: a swapped link or a rewritten file changes it. */
function identity(file: Stats): string {
  return `${file.dev}:${file.ino}:${file.size}:${file.mtimeMs}:${file.ctimeMs}`;
}

export function createTlsReloader(options: TlsReloaderOptions): TlsReloader {
  const { files, apply, logger, expiryOf } = options;
  let inForce = options.initial;
  const stats: TlsReloadStats = { applied: 0, failed: 0, expiresAt: expiryOf(inForce.cert) };
  // Unknown at first: the first look reads the files and compares them with the pair in force, so a
  // rotation between the start's read and that look is not missed.
  let seen: string | undefined;
  // The failure last logged — why a file could not be read, or the pair the server refused — so that a
  // pair left broken is not logged at every look.
  let lastFailure: string | TlsMaterial | undefined;
  let looking = false;

  const repeats = (failure: string | TlsMaterial) =>
    typeof failure === 'object' && typeof lastFailure === 'object' ? samePair(failure, lastFailure) : failure === lastFailure;

  // Counted and logged once per failure, not at every look that finds it still there; a reload asked for
  // (SIGHUP) always answers.
  const fail = (reason: string, failure: string | TlsMaterial, error: unknown, asked = false) => {
    if (!asked && repeats(failure)) return;
    lastFailure = failure;
    stats.failed++;
    logger({ level: 'error', msg: 'tls certificate reload failed; the previous one stays', certFile: files.certFile, keyFile: files.keyFile, reason, error: (error as Error)?.message ?? String(error) });
  };

  /** Reads both files and puts them in force if they differ from the pair in force (`force`: in any case). */
  const load = async (reason: string, seenAs: string | undefined, force: boolean) => {
    let next: TlsMaterial;
    try {
      const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
      next = { cert, key };
    } catch (error) {
      // Not marked seen: the next look reads again (a file missing for a moment comes back unchanged).
      fail(reason, `read:${(error as Error).message}`, error, force);
      return;
    }
    seen = seenAs;
    if (!force && samePair(next, inForce)) {
      lastFailure = undefined;
      return;
    }
    // An expired certificate fails every API server handshake (a restored backup, an old Secret synced
    // again): the pair in force serves on, unless it has expired too.
    const nextExpiry = expiryOf(next.cert);
    const now = Date.now();
    if (nextExpiry !== undefined && nextExpiry <= now && !(stats.expiresAt !== undefined && stats.expiresAt <= now)) {
      fail(reason, next, new Error(`the certificate expired at ${new Date(nextExpiry).toISOString()}`), force);
      return;
    }
    try {
      apply(next);
    } catch (error) {
      // OpenSSL's words ("key values mismatch") say neither which file nor what: the check's do.
      const problem = tlsPairProblem(next, files);
      fail(reason, next, problem === undefined ? error : new Error(problem), force);
      return;
    }
    inForce = next;
    lastFailure = undefined;
    stats.applied++;
    stats.expiresAt = nextExpiry;
    const expires = stats.expiresAt === undefined ? {} : { expires: new Date(stats.expiresAt).toISOString() };
    logger({ level: 'info', msg: 'tls certificate reloaded', certFile: files.certFile, reason, ...expires });
  };

  /** One look at the files (the timer's): a changed pair is applied. */
  const check = async () => {
    if (looking) return;
    looking = true;
    try {
      let now: string;
      try {
        const [cert, key] = await Promise.all([stat(files.certFile), stat(files.keyFile)]);
        now = `${identity(cert)}|${identity(key)}`;
      } catch (error) {
        fail('changed', `stat:${(error as Error).message}`, error);
        return;
      }
      if (now !== seen) await load('changed', now, false);
    } finally {
      looking = false;
    }
  };

  const timer = options.intervalMs > 0 ? setInterval(() => void check(), options.intervalMs) : undefined;
  timer?.unref(); // never what keeps the process alive

  return {
    reload: (reason) => load(reason, undefined, true),
    stats: () => ({ ...stats }),
    stop: () => clearInterval(timer),
  };
}

/**
 * Reads a PEM certificate's expiry (its first certificate: the server's own, before its chain). Loads
 * node:crypto when called, so a server without TLS does not load it at start (`require`, not `import()`:
 * the built server is a script compiled by vm.Script, where `import()` has no loader).
 */
export function certificateExpiryReader(): (cert: string | Buffer) => number | undefined {
  const { X509Certificate } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return (cert) => {
    try {
      const at = Date.parse(new X509Certificate(cert).validTo);
      return Number.isNaN(at) ? undefined : at;
    } catch {
      return undefined; // the server refuses a pair it cannot use; the metric just has no value
    }
  };
}

export function registerTlsMetrics(registry: Registry, reloader: TlsReloader): void {
  registry.register(
    new CallbackCounter('amender_tls_reloads_total', 'Rotated TLS certificate and key pairs looked at: applied, or failed (the previous pair stayed).', () => {
      const { applied, failed } = reloader.stats();
      return [
        [{ result: 'applied' }, applied],
        [{ result: 'failed' }, failed],
      ];
    }),
  );
  registry.register(
    new CallbackGauge('amender_tls_certificate_expiry_timestamp_seconds', 'When the TLS certificate in force expires (Unix time).', () => {
      const at = reloader.stats().expiresAt;
      return at === undefined ? [] : [[{}, at / 1000]];
    }),
  );
}
