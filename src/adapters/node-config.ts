/**
 * Configuration of the Node server: environment variables (the serverless way), optionally on top of a
 * YAML or JSON config file named by AMENDER_CONFIG. A variable always wins over the file. Every setting is
 * documented in README.md ("Configuration"; a test checks that every variable read is there). Pure: takes
 * the environment and the file text, returns the settings or every problem found.
 */
import { parse as parseYaml } from 'yaml';
import { CLUSTER_ENVIRONMENT_VARIABLES, ClusterConfigError, DEFAULT_REFRESH_SECONDS, MAX_REFRESH_SECONDS, readClustersConfig, type ClusterConfig } from '../clusters/index.js';
import { DEFAULT_LIMITS, isLogLevel, type Limits, type LogLevel } from '../server/index.js';
import { S3_ENVIRONMENT_VARIABLES } from '../sources/node/index.js';
import { POOL_ENVIRONMENT_VARIABLES } from './pool/index.js';
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS } from './node-defaults.js';

export interface NodeConfig {
  port: number;
  host: string;
  /** Where the default set (`POST /mutate`) comes from: `bundled`, `file://DIR`, a path, `s3://bucket/prefix`. */
  policySources: string[];
  /** Seconds between refreshes of every set from its sources (0: load once, SIGHUP still reloads). */
  refreshSeconds: number;
  /** The clusters served on `/clusters/{cluster}/...` (environment and the file's `clusters` key). */
  clusters: ClusterConfig[];
  tls?: { certFile: string; keyFile: string };
  limits: Limits;
  logLevel: LogLevel;
  /** How long a drain on SIGTERM waits for requests in flight before cutting connections. */
  shutdownTimeoutMs: number;
  /** Longest time to receive a whole request. */
  requestTimeoutMs: number;
  /** Longest time to receive a request's headers (and a TLS handshake); at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** Connections held at once; more are closed as soon as they open. */
  maxConnections: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

export const DEFAULT_PORT = 8080;

/**
 * Each setting: its environment variable, its config file key (dotted below `tls` and `limits`; the
 * setting's own name when not given; `clusters` is read by src/clusters) and how to read it.
 */
const SETTINGS = {
  port: { env: 'PORT', kind: 'port' },
  host: { env: 'AMENDER_HOST', kind: 'string' },
  policySources: { env: 'AMENDER_POLICY_SOURCES', kind: 'list' },
  logLevel: { env: 'AMENDER_LOG_LEVEL', kind: 'logLevel' },
  requestTimeoutMs: { env: 'AMENDER_REQUEST_TIMEOUT_MS', kind: 'count' },
  headersTimeoutMs: { env: 'AMENDER_HEADERS_TIMEOUT_MS', kind: 'count' },
  maxConnections: { env: 'AMENDER_MAX_CONNECTIONS', kind: 'count' },
  shutdownTimeoutMs: { env: 'AMENDER_SHUTDOWN_TIMEOUT_MS', kind: 'count' },
  refreshSeconds: { env: 'AMENDER_REFRESH_SECONDS', kind: 'seconds' },
  tlsCertFile: { env: 'AMENDER_TLS_CERT_FILE', kind: 'string', file: 'tls.certFile' },
  tlsKeyFile: { env: 'AMENDER_TLS_KEY_FILE', kind: 'string', file: 'tls.keyFile' },
  maxBodyBytes: { env: 'AMENDER_MAX_BODY_BYTES', kind: 'count', file: 'limits.maxBodyBytes' },
  bodyTimeoutMs: { env: 'AMENDER_BODY_TIMEOUT_MS', kind: 'count', file: 'limits.bodyTimeoutMs' },
  maxJsonDepth: { env: 'AMENDER_MAX_JSON_DEPTH', kind: 'count', file: 'limits.maxJsonDepth' },
  reviewDeadlineMs: { env: 'AMENDER_REVIEW_DEADLINE_MS', kind: 'count', file: 'limits.reviewDeadlineMs' },
  maxValueBytes: { env: 'AMENDER_MAX_VALUE_BYTES', kind: 'count', file: 'limits.maxValueBytes' },
} satisfies Record<string, { env: string; kind: Kind; file?: string }>;

type Key = keyof typeof SETTINGS;
type Raw = Partial<Record<Key, string | number | string[]>>;

export const CONFIG_FILE_VARIABLE = 'AMENDER_CONFIG';

/** Read by the AWS SDK's S3 client of the `s3://` sources (credentials go through its default chain). */
const AWS_REGION_VARIABLES = ['AWS_REGION', 'AWS_DEFAULT_REGION'];

/**
 * The names of every environment variable read, cluster variables as patterns with `<NAME>` (for the
 * README test that checks they are documented, and the manifest tests).
 */
export const ENVIRONMENT_VARIABLES: readonly string[] = [
  CONFIG_FILE_VARIABLE,
  ...Object.values(SETTINGS).map((s) => s.env),
  ...CLUSTER_ENVIRONMENT_VARIABLES.filter((name) => name !== SETTINGS.refreshSeconds.env),
  ...S3_ENVIRONMENT_VARIABLES,
  ...POOL_ENVIRONMENT_VARIABLES,
  ...AWS_REGION_VARIABLES,
];

export function readNodeConfig(env: Readonly<Record<string, string | undefined>>, fileText?: string): NodeConfig {
  const problems: string[] = [];
  const raw: Raw = {};
  const file = fileText !== undefined ? readFile(fileText, problems) : { raw: {}, clusters: undefined };
  Object.assign(raw, file.raw);
  for (const key of Object.keys(SETTINGS) as Key[]) {
    const value = env[SETTINGS[key].env];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const value = <T>(key: Key, fallback: T): T => {
    const v = raw[key];
    if (v === undefined) return fallback;
    const source = typeof v === 'string' && env[SETTINGS[key].env] === v ? SETTINGS[key].env : `config file key ${key}`;
    const parsed = convert(SETTINGS[key].kind, v);
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      problems.push(`${source}: ${parsed.error}`);
      return fallback;
    }
    return parsed as T;
  };

  const config: NodeConfig = {
    port: value('port', DEFAULT_PORT),
    host: value('host', '0.0.0.0'),
    policySources: value('policySources', ['bundled']),
    refreshSeconds: value('refreshSeconds', DEFAULT_REFRESH_SECONDS),
    clusters: [],
    limits: {
      maxBodyBytes: value('maxBodyBytes', DEFAULT_LIMITS.maxBodyBytes),
      bodyTimeoutMs: value('bodyTimeoutMs', DEFAULT_LIMITS.bodyTimeoutMs),
      maxJsonDepth: value('maxJsonDepth', DEFAULT_LIMITS.maxJsonDepth),
      reviewDeadlineMs: value('reviewDeadlineMs', DEFAULT_LIMITS.reviewDeadlineMs),
      maxValueBytes: value('maxValueBytes', DEFAULT_LIMITS.maxValueBytes),
    },
    logLevel: value('logLevel', 'info'),
    requestTimeoutMs: value('requestTimeoutMs', DEFAULT_REQUEST_TIMEOUT_MS),
    headersTimeoutMs: 0,
    maxConnections: value('maxConnections', DEFAULT_MAX_CONNECTIONS),
    shutdownTimeoutMs: value('shutdownTimeoutMs', DEFAULT_SHUTDOWN_TIMEOUT_MS),
  };
  // Headers are part of the request: without a setting of its own the header timeout follows a shorter
  // request timeout; a header timeout set longer than the request timeout is a mistake.
  const headersTimeoutMs = value<number | undefined>('headersTimeoutMs', undefined);
  config.headersTimeoutMs = headersTimeoutMs ?? Math.min(DEFAULT_HEADERS_TIMEOUT_MS, config.requestTimeoutMs);
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push(`AMENDER_HEADERS_TIMEOUT_MS: at most AMENDER_REQUEST_TIMEOUT_MS (${config.requestTimeoutMs}), got ${config.headersTimeoutMs}`);
  }
  const certFile = value<string | undefined>('tlsCertFile', undefined);
  const keyFile = value<string | undefined>('tlsKeyFile', undefined);
  if (certFile !== undefined && keyFile !== undefined) config.tls = { certFile, keyFile };
  else if (certFile !== undefined || keyFile !== undefined) {
    problems.push('AMENDER_TLS_CERT_FILE and AMENDER_TLS_KEY_FILE must be given together (HTTPS needs both)');
  }
  if (config.limits.maxJsonDepth > DEFAULT_LIMITS.maxJsonDepth) {
    problems.push(`AMENDER_MAX_JSON_DEPTH: at most ${DEFAULT_LIMITS.maxJsonDepth}, got ${config.limits.maxJsonDepth}`);
  }
  if (config.policySources.length === 0) problems.push('AMENDER_POLICY_SOURCES: at least one source is needed');
  try {
    config.clusters = readClustersConfig(env, file.clusters);
  } catch (err) {
    if (!(err instanceof ClusterConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Config file key → setting. */
const FILE_KEYS: Record<string, Key> = Object.fromEntries(
  Object.entries(SETTINGS).map(([key, setting]) => ['file' in setting ? setting.file : key, key as Key]),
);

/** Every key the config file takes, for the README test. */
export const CONFIG_FILE_KEYS: readonly string[] = [...Object.keys(FILE_KEYS), 'clusters'];

/** The file's settings, and its `clusters` value as written (checked by readClustersConfig). */
function readFile(text: string, problems: string[]): { raw: Raw; clusters: unknown } {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    problems.push(`config file: ${(err as Error).message.split('\n')[0]}`);
    return { raw: {}, clusters: undefined };
  }
  if (doc === null || doc === undefined) return { raw: {}, clusters: undefined };
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    problems.push('config file: expected a mapping of settings');
    return { raw: {}, clusters: undefined };
  }
  const raw: Raw = {};
  let clusters: unknown;
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const path = prefix + k;
      if ((k === 'tls' || k === 'limits') && prefix === '' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
        walk(v as Record<string, unknown>, `${k}.`);
      } else if (k === 'clusters' && prefix === '') {
        clusters = v;
      } else if (Object.prototype.hasOwnProperty.call(FILE_KEYS, path)) {
        if (typeof v === 'string' || typeof v === 'number' || (Array.isArray(v) && v.every((s) => typeof s === 'string'))) {
          raw[FILE_KEYS[path]] = v as string | number | string[];
        } else {
          problems.push(`config file key ${path}: expected a string, number or list of strings`);
        }
      } else {
        problems.push(`config file: unknown key ${path} (known: ${CONFIG_FILE_KEYS.join(', ')})`);
      }
    }
  };
  walk(doc as Record<string, unknown>, '');
  return { raw, clusters };
}

type Kind = 'port' | 'string' | 'list' | 'count' | 'logLevel' | 'seconds';

function convert(kind: Kind, v: string | number | string[]): unknown {
  switch (kind) {
    case 'string':
      return typeof v === 'string' && v !== '' ? v : { error: `expected a non-empty string, got ${JSON.stringify(v)}` };
    case 'list': {
      const items = Array.isArray(v) ? v : String(v).split(',');
      return items.map((s) => s.trim()).filter((s) => s !== '');
    }
    case 'logLevel':
      return typeof v === 'string' && isLogLevel(v) ? v : { error: `expected debug, info, warn or error, got ${JSON.stringify(v)}` };
    case 'seconds': {
      const n = typeof v === 'number' ? v : /^\s*\d+\s*$/.test(String(v)) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n) || n < 0 || n > MAX_REFRESH_SECONDS) return { error: `expected whole seconds from 0 to ${MAX_REFRESH_SECONDS}, got ${JSON.stringify(v)}` };
      return n;
    }
    case 'port':
    case 'count': {
      const n = typeof v === 'number' ? v : /^\s*\d+\s*$/.test(String(v)) ? Number(v) : NaN;
      const max = kind === 'port' ? 65535 : Number.MAX_SAFE_INTEGER;
      const min = kind === 'port' ? 0 : 1;
      if (!Number.isSafeInteger(n) || n < min || n > max) return { error: `expected an integer from ${min} to ${max}, got ${JSON.stringify(v)}` };
      return n;
    }
  }
}
