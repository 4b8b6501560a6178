/** Cluster configuration from environment variables and the config file, and secret hashing. */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  ClusterConfigError,
  clusterVariables,
  constantTimeEqual,
  hashSecret,
  readClustersConfig,
  SecretVerifier,
} from '../../src/clusters/index.js';
import { readServerlessConfig, ServerlessConfigError } from '../../src/adapters/serverless-config.js';

const HASH_A = `sha256:${'a'.repeat(64)}`;
const HASH_B = `sha256:${'b'.repeat(64)}`;

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ClusterConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ClusterConfigError');
}

describe('cluster configuration', () => {
  it('reads clusters from the environment', () => {
    const env = {
      AMENDER_CLUSTERS: 'prod-eu, staging',
      AMENDER_CLUSTER_PROD_EU_SOURCES: 's3://policies/prod-eu,bundled',
      AMENDER_CLUSTER_PROD_EU_SECRET_HASHES: `${HASH_A},${HASH_B}`,
      AMENDER_CLUSTER_PROD_EU_REFRESH_SECONDS: '30',
      AMENDER_CLUSTER_STAGING_SOURCES: 'file:///etc/amender/staging',
      AMENDER_CLUSTER_STAGING_SECRET_HASHES: HASH_B,
    };
    expect(readClustersConfig(env)).toEqual([
      { name: 'prod-eu', sources: ['s3://policies/prod-eu', 'bundled'], secretHashes: [HASH_A, HASH_B], refreshSeconds: 30 },
      { name: 'staging', sources: ['file:///etc/amender/staging'], secretHashes: [HASH_B] },
    ]);
    expect(clusterVariables('prod-eu')).toEqual({
      sources: 'AMENDER_CLUSTER_PROD_EU_SOURCES',
      secretHashes: 'AMENDER_CLUSTER_PROD_EU_SECRET_HASHES',
      refreshSeconds: 'AMENDER_CLUSTER_PROD_EU_REFRESH_SECONDS',
    });
  });

  it('reads the clusters key of the config file, and lets a variable replace a field', () => {
    const file = parseYaml(`
clusters:
  prod-eu:
    sources: [s3://policies/prod-eu]
    secretHashes: [${HASH_A}]
    refreshSeconds: 120
  dev:
    sources: [bundled]
    secretHashes: [${HASH_B}]
`) as { clusters: unknown };
    expect(readClustersConfig({}, file.clusters)).toEqual([
      { name: 'dev', sources: ['bundled'], secretHashes: [HASH_B] },
      { name: 'prod-eu', sources: ['s3://policies/prod-eu'], secretHashes: [HASH_A], refreshSeconds: 120 },
    ]);
    const env = { AMENDER_CLUSTERS: 'prod-eu', AMENDER_CLUSTER_PROD_EU_SECRET_HASHES: `${HASH_A},${HASH_B}` };
    expect(readClustersConfig(env, file.clusters)[1]).toEqual({
      name: 'prod-eu',
      sources: ['s3://policies/prod-eu'],
      secretHashes: [HASH_A, HASH_B],
      refreshSeconds: 120,
    });
  });

  it('has no clusters when none is configured', () => {
    expect(readClustersConfig({})).toEqual([]);
  });

  it('lists every problem, and never echoes a value given as a secret hash', () => {
    const secret = 'hunter2-this-is-the-secret-itself';
    const problems = problemsOf(() =>
      readClustersConfig(
        {
          AMENDER_CLUSTERS: 'Prod,ok,no-hash,ok',
          AMENDER_CLUSTER_OK_SOURCES: 'bundled',
          AMENDER_CLUSTER_OK_SECRET_HASHES: secret,
          AMENDER_CLUSTER_OK_REFRESH_SECONDS: '1m',
          AMENDER_CLUSTER_NO_HASH_SOURCES: 'bundled',
        },
        { other: { sources: 'bundled', secretHashes: [HASH_A], colour: 'blue' }, bad: 'x' },
      ),
    );
    expect(problems).toEqual([
      'config file key clusters.other: unknown key colour (known: sources, secretHashes, refreshSeconds)',
      'config file key clusters.bad: expected a mapping with sources, secretHashes, refreshSeconds',
      'AMENDER_CLUSTER_OK_REFRESH_SECONDS: expected whole seconds from 0 to 86400, got "1m"',
      'AMENDER_CLUSTERS: a cluster is named twice',
      'cluster "Prod": a name is 1-63 lowercase letters, digits and \'-\', starting and ending with a letter or digit',
      'cluster ok: secret hash #1 is not of the form sha256:<64 lowercase hex digits> (store the hash of the secret, never the secret)',
      'cluster no-hash: no accepted secret hash (AMENDER_CLUSTER_NO_HASH_SECRET_HASHES or clusters.no-hash.secretHashes)',
    ]);
    expect(problems.join('\n')).not.toContain(secret);
  });

  it('refuses a cluster named default (the default set in metrics and logs) and variables of a cluster not configured', () => {
    const problems = problemsOf(() =>
      readClustersConfig({
        AMENDER_CLUSTERS: 'default,prod-eu',
        AMENDER_CLUSTER_DEFAULT_SOURCES: 'bundled',
        AMENDER_CLUSTER_DEFAULT_SECRET_HASHES: HASH_A,
        AMENDER_CLUSTER_PROD_EU_SOURCES: 'bundled',
        AMENDER_CLUSTER_PROD_EU_SECRET_HASHES: HASH_B,
        AMENDER_CLUSTER_STAGING_SOURCES: 'bundled',
        AMENDER_CLUSTER_STAGING_SECRET_HASHES: HASH_B,
        AMENDER_CLUSTER_PROD_REFRESH_SECONDS: '30',
      }),
    );
    expect(problems).toEqual([
      "AMENDER_CLUSTER_PROD_REFRESH_SECONDS is set, but no cluster prod is configured (AMENDER_CLUSTERS or the config file's clusters)",
      "AMENDER_CLUSTER_STAGING_SECRET_HASHES is set, but no cluster staging is configured (AMENDER_CLUSTERS or the config file's clusters)",
      "AMENDER_CLUSTER_STAGING_SOURCES is set, but no cluster staging is configured (AMENDER_CLUSTERS or the config file's clusters)",
      'cluster default: the name of the default policy set, which metrics (policy_set="default") and logs would not tell apart from it; choose another',
    ]);
    // A cluster of the config file counts as configured for its variables.
    expect(
      readClustersConfig({ AMENDER_CLUSTER_EDGE_REFRESH_SECONDS: '30' }, { edge: { sources: 'bundled', secretHashes: [HASH_A] } }).map((c) => [c.name, c.refreshSeconds]),
    ).toEqual([['edge', 30]]);
  });

  it('reads the fields of a file cluster with the settings reader, naming each key', () => {
    expect(problemsOf(() => readClustersConfig({}, { a: { sources: 5, secretHashes: [HASH_A], refreshSeconds: 'soon' } }))).toEqual([
      'config file key clusters.a.sources: expected a list of strings, got 5',
      'config file key clusters.a.refreshSeconds: expected whole seconds from 0 to 86400, got "soon"',
      'cluster a: no policy source (AMENDER_CLUSTER_A_SOURCES or clusters.a.sources)',
    ]);
  });

  it('reads the default refresh interval (the common settings of every platform)', () => {
    expect(readServerlessConfig({}).refreshSeconds).toBe(60);
    expect(readServerlessConfig({ AMENDER_REFRESH_SECONDS: '0' }).refreshSeconds).toBe(0);
    expect(readServerlessConfig({ AMENDER_REFRESH_SECONDS: '15' }).refreshSeconds).toBe(15);
    expect(() => readServerlessConfig({ AMENDER_REFRESH_SECONDS: '-1' })).toThrow(ServerlessConfigError);
    expect(() => readServerlessConfig({ AMENDER_REFRESH_SECONDS: '-1' })).toThrow('AMENDER_REFRESH_SECONDS: expected whole seconds from 0 to 86400, got "-1"');
  });
});

describe('secrets', () => {
  it('hashes as the documented shell command does', async () => {
    const secret = '3f0c1e9a7b2d4c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6';
    const { stdout } = await promisify(execFile)('bash', ['-c', 'echo "sha256:$(printf %s "$SECRET" | sha256sum | cut -d\' \' -f1)"'], { env: { ...process.env, SECRET: secret } });
    expect(await hashSecret(secret)).toBe(stdout.trim());
    expect(await hashSecret(secret)).toBe(`sha256:${createHash('sha256').update(secret).digest('hex')}`);
  });

  it('accepts any of the configured hashes (rotation) and nothing else', async () => {
    const verifier = new SecretVerifier([await hashSecret('old-secret'), await hashSecret('new-secret')]);
    expect(await verifier.verify('old-secret')).toBe(true);
    expect(await verifier.verify('new-secret')).toBe(true);
    expect(await verifier.verify('new-secret ')).toBe(false);
    expect(await verifier.verify('')).toBe(false);
    expect(await verifier.verify(undefined)).toBe(false);
    expect(await verifier.verify('x'.repeat(5000))).toBe(false);
  });

  it('refuses a verifier without a hash or with a malformed one', () => {
    expect(() => new SecretVerifier([])).toThrow(/at least one/);
    expect(() => new SecretVerifier([`sha256:${'A'.repeat(64)}`])).toThrow(/sha256:<64 lowercase hex digits>/);
  });

  it('compares bytes without regard to where they differ', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([9, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 0]))).toBe(false);
  });
});
