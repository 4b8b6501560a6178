/**
 * Settings of the serverless runtimes (AWS Lambda, Cloudflare Workers), read from their environment:
 * Lambda's environment variables, or a Worker's `env` (vars and secrets are strings there; bindings such
 * as an R2 bucket are objects and are ignored here). Pure: environment in, settings or every problem out.
 *
 *   AMENDER_POLICY_SOURCES    comma-separated source URIs of the default set (`POST /mutate`); default
 *                             `bundled`. Lambda: bundled, file://DIR, s3://bucket/prefix. Workers: bundled,
 *                             r2://BINDING/prefix.
 *   AMENDER_REFRESH_SECONDS   age after which a set is read again, checked on requests (default 60; 0 =
 *                             load once). Per cluster: AMENDER_CLUSTER_<NAME>_REFRESH_SECONDS.
 *   AMENDER_CLUSTERS, AMENDER_CLUSTER_<NAME>_SOURCES, _SECRET_HASHES   clusters (see src/clusters/config.ts)
 *   AMENDER_MAX_BODY_BYTES, AMENDER_BODY_TIMEOUT_MS, AMENDER_MAX_JSON_DEPTH   request limits
 *   AMENDER_LOG_LEVEL         debug | info | warn | error (default info)
 *   AMENDER_REFRESH_WAIT_MS   Lambda only: how long an invocation that started a due refresh waits for it
 *                             before returning (default 2000); an unfinished refresh goes on in the next
 *                             invocation (the environment is frozen between invocations).
 */
import { CLUSTER_ENVIRONMENT_VARIABLES, ClusterConfigError, DEFAULT_REFRESH_SECONDS, readClustersConfig, readRefreshSeconds, type ClusterConfig } from '../clusters/index.js';
import { DEFAULT_LIMITS, isLogLevel, type Limits, type LogLevel } from '../server/index.js';

export interface ServerlessConfig {
  policySources: string[];
  refreshSeconds: number;
  clusters: ClusterConfig[];
  limits: Limits;
  logLevel: LogLevel;
  refreshWaitMs: number;
}

export class ServerlessConfigError extends Error {
  override name = 'ServerlessConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

export const DEFAULT_REFRESH_WAIT_MS = 2000;

const LIMIT_VARIABLES: Record<keyof Limits, string> = {
  maxBodyBytes: 'AMENDER_MAX_BODY_BYTES',
  bodyTimeoutMs: 'AMENDER_BODY_TIMEOUT_MS',
  maxJsonDepth: 'AMENDER_MAX_JSON_DEPTH',
  reviewDeadlineMs: 'AMENDER_REVIEW_DEADLINE_MS',
  maxValueBytes: 'AMENDER_MAX_VALUE_BYTES',
};

/** Every variable read (cluster variables as patterns with `<NAME>`), for documentation checks. */
export const SERVERLESS_ENVIRONMENT_VARIABLES: readonly string[] = [
  'AMENDER_POLICY_SOURCES',
  ...CLUSTER_ENVIRONMENT_VARIABLES,
  ...Object.values(LIMIT_VARIABLES),
  'AMENDER_LOG_LEVEL',
  'AMENDER_REFRESH_WAIT_MS',
];

/** The string values of an environment (a Worker's `env` also holds bindings, which are not settings). */
export function stringEnvironment(env: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(env)) {
    const value = env[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

function count(env: Record<string, string>, name: string, fallback: number, min: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < min) {
    problems.push(`${name}: expected an integer of at least ${min}, got ${JSON.stringify(raw)}`);
    return fallback;
  }
  return Number(raw);
}

export function readServerlessConfig(environment: Readonly<Record<string, unknown>>): ServerlessConfig {
  const env = stringEnvironment(environment);
  const problems: string[] = [];
  const policySources = (env.AMENDER_POLICY_SOURCES ?? 'bundled').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (policySources.length === 0) problems.push('AMENDER_POLICY_SOURCES: at least one source is needed (or leave it unset for bundled)');

  const collect = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch (err) {
      if (!(err instanceof ClusterConfigError)) throw err;
      problems.push(...err.problems);
      return fallback;
    }
  };
  const refreshSeconds = collect(() => readRefreshSeconds(env), DEFAULT_REFRESH_SECONDS);
  const clusters = collect<ClusterConfig[]>(() => readClustersConfig(env), []);

  const limits: Limits = {
    maxBodyBytes: count(env, LIMIT_VARIABLES.maxBodyBytes, DEFAULT_LIMITS.maxBodyBytes, 1, problems),
    bodyTimeoutMs: count(env, LIMIT_VARIABLES.bodyTimeoutMs, DEFAULT_LIMITS.bodyTimeoutMs, 1, problems),
    maxJsonDepth: count(env, LIMIT_VARIABLES.maxJsonDepth, DEFAULT_LIMITS.maxJsonDepth, 1, problems),
    reviewDeadlineMs: count(env, LIMIT_VARIABLES.reviewDeadlineMs, DEFAULT_LIMITS.reviewDeadlineMs, 1, problems),
    maxValueBytes: count(env, LIMIT_VARIABLES.maxValueBytes, DEFAULT_LIMITS.maxValueBytes, 1, problems),
  };
  if (limits.maxJsonDepth > DEFAULT_LIMITS.maxJsonDepth) {
    problems.push(`${LIMIT_VARIABLES.maxJsonDepth}: at most ${DEFAULT_LIMITS.maxJsonDepth}, got ${limits.maxJsonDepth}`);
  }

  const level = env.AMENDER_LOG_LEVEL ?? 'info';
  if (!isLogLevel(level)) problems.push(`AMENDER_LOG_LEVEL: expected debug, info, warn or error, got ${JSON.stringify(level)}`);
  const refreshWaitMs = count(env, 'AMENDER_REFRESH_WAIT_MS', DEFAULT_REFRESH_WAIT_MS, 0, problems);

  if (problems.length > 0) throw new ServerlessConfigError(problems);
  return { policySources, refreshSeconds, clusters, limits, logLevel: level as LogLevel, refreshWaitMs };
}
