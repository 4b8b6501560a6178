/**
 * Configuration of the Node server: environment variables (the serverless way), optionally on top of a
 * YAML or JSON config file named by AMENDER_CONFIG. A variable always wins over the file. Every setting is
 * documented in README.md ("Configuration"; a test checks that every variable read is there). The
 * settings every platform shares are the runtime's table (src/runtime); this file adds the Node server's
 * own (listening, connections, drain, TLS). Pure: takes the environment and the file text, returns the
 * settings or every problem found.
 */
import { CLUSTER_ENVIRONMENT_VARIABLES } from '../clusters/index.js';
import { CLUSTERS_SECTION, COMMON_SETTINGS, readCommonSettings, type CommonSettings } from '../runtime/index.js';
import { assertNoProblems, fileKeysOf, integer, milliseconds, optional, readSettings, readSettingsFile, seconds, text, unknownVariables, variablesOf, type Setting, type SettingsTable } from '../settings/index.js';
import { S3_ENVIRONMENT_VARIABLES } from '../sources/node/index.js';
import { POOL_ENVIRONMENT_VARIABLES } from './pool/index.js';
import { BUILD_VARIABLES } from './node-build-variables.js';
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_LOG_BACKLOG_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUESTS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_SHUTDOWN_TIMEOUT_MS, DEFAULT_TLS_RELOAD_SECONDS, MAX_TLS_RELOAD_SECONDS } from './node-defaults.js';

/** The Node server's configuration: the settings every platform reads, and the server's own. */
export interface NodeConfig extends CommonSettings {
  port: number;
  /**
   * The address to listen on; undefined: every address, IPv6 and IPv4 (`::`, dual-stack) where the host has
   * IPv6, else `0.0.0.0` (Node's choice when given none). `0.0.0.0` alone would leave the server
   * unreachable in an IPv6-only cluster, where the API server calls the pod's IPv6 address.
   */
  host?: string;
  /**
   * A second port, plain HTTP, that answers probes only (GET/HEAD /healthz, /readyz), outside the main
   * port's connection and request caps; undefined: none.
   */
  probePort?: number;
  /** HTTPS: the PEM files, and how often they are looked at for a rotated pair (0: only on SIGHUP). */
  tls?: { certFile: string; keyFile: string; reloadSeconds: number };
  /** How long a drain on SIGTERM waits for requests in flight before cutting connections. */
  shutdownTimeoutMs: number;
  /** Longest time to receive a whole request. */
  requestTimeoutMs: number;
  /** Longest time to receive a request's headers (and a TLS handshake); at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** Connections held at once; more are closed as soon as they open. */
  maxConnections: number;
  /** Requests in flight at once over every connection; one more is answered 503 at once. */
  maxRequests: number;
  /** Bytes of log lines standard output may hold unwritten (a stalled log reader) before lines are dropped. */
  logBacklogBytes: number;
  /** MiB of request bodies held at once (being read, waiting or under review); undefined: from the memory limit. */
  bodyBudgetMb?: number;
}

/** A configuration with problems (every one listed); the runtime's SettingsError. */
export { SettingsError as ConfigError } from '../settings/index.js';

export const DEFAULT_PORT = 8080;

/** Where the server listens: read before the common settings (their problems are listed in this order). */
const LISTEN_SETTINGS = {
  port: { variable: 'PORT', fileKey: 'port', type: integer(0, 65535), default: DEFAULT_PORT } satisfies Setting<number>,
  host: {
    variable: 'AMENDER_HOST',
    fileKey: 'host',
    type: optional(text),
    default: undefined,
    // As a URL writes it ([::1]): listen() takes the address alone, and would look `[::1]` up as a host name.
    check: (host) => (/^\[.*\]$/.test(host ?? '') ? `an IPv6 address is written without brackets here: ${host!.slice(1, -1)}` : undefined),
  } satisfies Setting<string | undefined>,
  probePort: { variable: 'AMENDER_PROBE_PORT', fileKey: 'probePort', type: optional(integer(0, 65535)), default: undefined } satisfies Setting<number | undefined>,
};

/** Connections, the drain, the log's backlog and TLS: the Node server's own settings. */
const CONNECTION_SETTINGS = {
  requestTimeoutMs: { variable: 'AMENDER_REQUEST_TIMEOUT_MS', fileKey: 'requestTimeoutMs', type: milliseconds(1), default: DEFAULT_REQUEST_TIMEOUT_MS } satisfies Setting<number>,
  /** Without a setting of its own, the header timeout follows a shorter request timeout. */
  headersTimeoutMs: { variable: 'AMENDER_HEADERS_TIMEOUT_MS', fileKey: 'headersTimeoutMs', type: optional(milliseconds(1)), default: undefined } satisfies Setting<number | undefined>,
  maxConnections: { variable: 'AMENDER_MAX_CONNECTIONS', fileKey: 'maxConnections', type: integer(1), default: DEFAULT_MAX_CONNECTIONS } satisfies Setting<number>,
  maxRequests: { variable: 'AMENDER_MAX_REQUESTS', fileKey: 'maxRequests', type: integer(1), default: DEFAULT_MAX_REQUESTS } satisfies Setting<number>,
  shutdownTimeoutMs: { variable: 'AMENDER_SHUTDOWN_TIMEOUT_MS', fileKey: 'shutdownTimeoutMs', type: milliseconds(1), default: DEFAULT_SHUTDOWN_TIMEOUT_MS } satisfies Setting<number>,
  tlsCertFile: { variable: 'AMENDER_TLS_CERT_FILE', fileKey: 'tls.certFile', type: optional(text), default: undefined } satisfies Setting<string | undefined>,
  tlsKeyFile: { variable: 'AMENDER_TLS_KEY_FILE', fileKey: 'tls.keyFile', type: optional(text), default: undefined } satisfies Setting<string | undefined>,
  logBacklogBytes: { variable: 'AMENDER_LOG_BACKLOG_BYTES', fileKey: 'logBacklogBytes', type: integer(64 * 1024), default: DEFAULT_LOG_BACKLOG_BYTES } satisfies Setting<number>,
  tlsReloadSeconds: { variable: 'AMENDER_TLS_RELOAD_SECONDS', fileKey: 'tls.reloadSeconds', type: seconds(MAX_TLS_RELOAD_SECONDS), default: DEFAULT_TLS_RELOAD_SECONDS } satisfies Setting<number>,
  /** Without a setting, from the memory limit (node-defaults.ts), which only the running process knows. */
  bodyBudgetMb: { variable: 'AMENDER_BODY_BUDGET_MB', fileKey: 'bodyBudgetMb', type: optional(integer(1)), default: undefined } satisfies Setting<number | undefined>,
};

/** Every setting of the Node server's table (the pool's and S3's are read by their own modules). */
const NODE_SETTINGS: SettingsTable = { ...LISTEN_SETTINGS, ...COMMON_SETTINGS, ...CONNECTION_SETTINGS };

export const CONFIG_FILE_VARIABLE = 'AMENDER_CONFIG';

/** Read by the AWS SDK's S3 client of the `s3://` sources (credentials go through its default chain). */
const AWS_REGION_VARIABLES = ['AWS_REGION', 'AWS_DEFAULT_REGION'];

/**
 * The names of every environment variable read, cluster variables as patterns with `<NAME>` (for the
 * README test that checks they are documented, and the manifest tests).
 */
export const ENVIRONMENT_VARIABLES: readonly string[] = [
  CONFIG_FILE_VARIABLE,
  ...variablesOf(NODE_SETTINGS),
  ...CLUSTER_ENVIRONMENT_VARIABLES.filter((name) => name !== COMMON_SETTINGS.refreshSeconds.variable),
  ...S3_ENVIRONMENT_VARIABLES,
  ...POOL_ENVIRONMENT_VARIABLES,
  ...AWS_REGION_VARIABLES,
];

/**
 * An `AMENDER_` variable this server reads under no name (a typo such as AMENDER_REFERSH_SECONDS leaves its
 * setting at the default): one warning each, for the log at start.
 */
export function unknownVariableWarnings(env: Readonly<Record<string, string | undefined>>): string[] {
  return unknownVariables(env, [...ENVIRONMENT_VARIABLES, ...BUILD_VARIABLES], 'AMENDER_');
}

/** Every key the config file takes, for the README test. */
export const CONFIG_FILE_KEYS: readonly string[] = fileKeysOf(NODE_SETTINGS, [CLUSTERS_SECTION]);

export function readNodeConfig(env: Readonly<Record<string, string | undefined>>, fileText?: string): NodeConfig {
  const problems: string[] = [];
  const file = fileText === undefined ? undefined : readSettingsFile(fileText, NODE_SETTINGS, [CLUSTERS_SECTION], problems);
  const listen = readSettings(LISTEN_SETTINGS, env, problems, file);
  const common = readCommonSettings(env, problems, file);
  const connections = readSettings(CONNECTION_SETTINGS, env, problems, file);
  const { probePort, host, port } = listen;
  const config: NodeConfig = {
    port,
    ...(host !== undefined ? { host } : {}),
    ...(probePort !== undefined ? { probePort } : {}),
    ...common,
    requestTimeoutMs: connections.requestTimeoutMs,
    headersTimeoutMs: connections.headersTimeoutMs ?? Math.min(DEFAULT_HEADERS_TIMEOUT_MS, connections.requestTimeoutMs),
    maxConnections: connections.maxConnections,
    maxRequests: connections.maxRequests,
    shutdownTimeoutMs: connections.shutdownTimeoutMs,
    logBacklogBytes: connections.logBacklogBytes,
  };
  if (connections.bodyBudgetMb !== undefined) config.bodyBudgetMb = connections.bodyBudgetMb;
  // Headers are part of the request: a header timeout set longer than the request timeout is a mistake.
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push(`AMENDER_HEADERS_TIMEOUT_MS: at most AMENDER_REQUEST_TIMEOUT_MS (${config.requestTimeoutMs}), got ${config.headersTimeoutMs}`);
  }
  const { tlsCertFile: certFile, tlsKeyFile: keyFile, tlsReloadSeconds: reloadSeconds } = connections;
  if (certFile !== undefined && keyFile !== undefined) config.tls = { certFile, keyFile, reloadSeconds };
  else if (certFile !== undefined || keyFile !== undefined) {
    problems.push('AMENDER_TLS_CERT_FILE and AMENDER_TLS_KEY_FILE must be given together (HTTPS needs both)');
  }
  if (config.probePort !== undefined && config.probePort !== 0 && config.probePort === config.port) {
    problems.push(`AMENDER_PROBE_PORT: must differ from PORT (${config.port})`);
  }
  assertNoProblems(problems);
  return config;
}
