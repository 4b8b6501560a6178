/**
 * Cluster secrets are stored only as SHA-256 hashes (`sha256:<64 hex>`), so configuration, environment
 * dumps and backups never hold a usable secret. Make one:
 *
 *   SECRET=$(openssl rand -hex 32)                            # give it to the cluster's webhook config
 *   echo "sha256:$(printf %s "$SECRET" | sha256sum | cut -d' ' -f1)"   # configure this hash
 *
 * A presented secret is hashed and compared with every accepted hash, always all of them and always
 * every byte (no early exit), so the time taken says nothing about which hash or how much of it matched.
 * The secret must have enough entropy on its own (32 random bytes): an unsalted hash of a guessable
 * secret could be brute-forced by whoever reads the configuration. Web Crypto: Node 20, Lambda, Workers.
 */
const HASH = /^sha256:([0-9a-f]{64})$/;

/** Longest secret considered; a longer one is refused without hashing (headers are attacker-sized). */
export const MAX_SECRET_LENGTH = 1024;

/**
 * Shortest text that may be a secret where a request path is shown (logs, 404 and 405 replies:
 * server/redact.ts). Only hashes are configured, so the server cannot know a secret's length and accepts
 * any; `amender hash-secret` warns below 32 characters. Half of that still hides a secret made shorter
 * than advised (`openssl rand -hex 8`), while every route word, and the cluster names and mistyped paths
 * worth reading, stay shorter.
 */
export const SECRET_LIKE_LENGTH = 16;

export class SecretHashError extends Error {
  override name = 'SecretHashError';
}

export function isSecretHash(text: string): boolean {
  return HASH.test(text);
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** `sha256:<hex>` of a secret, as configured. */
export async function hashSecret(secret: string): Promise<string> {
  return `sha256:${Array.from(await sha256(secret), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** True when the two byte arrays are equal; the time depends only on their lengths. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

/** Checks presented secrets against a cluster's accepted hashes (two during a rotation). */
export class SecretVerifier {
  private readonly accepted: readonly Uint8Array[];

  constructor(hashes: readonly string[]) {
    const bad = hashes.filter((h) => !HASH.test(h));
    if (bad.length > 0) throw new SecretHashError(`expected sha256:<64 lowercase hex digits>, got ${bad.length} value(s) of another form`);
    if (hashes.length === 0) throw new SecretHashError('at least one accepted secret hash is needed');
    this.accepted = hashes.map((h) => hexBytes(HASH.exec(h)![1]));
  }

  get count(): number {
    return this.accepted.length;
  }

  async verify(presented: string | undefined): Promise<boolean> {
    if (presented === undefined || presented === '' || presented.length > MAX_SECRET_LENGTH) return false;
    const digest = await sha256(presented);
    let matched = false;
    for (const hash of this.accepted) matched = constantTimeEqual(digest, hash) || matched;
    return matched;
  }
}
