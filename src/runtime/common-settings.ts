/**
 * The settings every platform reads (Node server, Lambda, Workers): the default set's sources, the
 * refresh interval, the clusters, the request and review limits, the log level, the base path. README
 * "Configuration" documents each (a test checks every variable read is there).
 */
import { ClusterConfigError, DEFAULT_REFRESH_SECONDS, MAX_REFRESH_SECONDS, readClustersConfig, REFRESH_VARIABLE, type ClusterConfig } from '../clusters/index.js';
import { DEFAULT_LIMITS, type Limits, type LogLevel } from '../server/index.js';
import { integer, list, milliseconds, oneOf, optional, pathPrefix, readSettings, seconds, type Setting } from '../settings/index.js';

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

const atMostJsonDepth = (n: number) => (n > DEFAULT_LIMITS.maxJsonDepth ? `at most ${DEFAULT_LIMITS.maxJsonDepth}, got ${n}` : undefined);

export const COMMON_SETTINGS = {
  policySources: {
    variable: 'AMENDER_POLICY_SOURCES',
    fileKey: 'policySources',
    type: list,
    default: ['bundled'],
    check: (v) => (v.length === 0 ? 'at least one source is needed (or leave it unset for bundled)' : undefined),
  } satisfies Setting<string[]>,
  refreshSeconds: { variable: REFRESH_VARIABLE, fileKey: 'refreshSeconds', type: seconds(MAX_REFRESH_SECONDS), default: DEFAULT_REFRESH_SECONDS } satisfies Setting<number>,
  maxBodyBytes: { variable: 'AMENDER_MAX_BODY_BYTES', fileKey: 'limits.maxBodyBytes', type: integer(1), default: DEFAULT_LIMITS.maxBodyBytes } satisfies Setting<number>,
  bodyTimeoutMs: { variable: 'AMENDER_BODY_TIMEOUT_MS', fileKey: 'limits.bodyTimeoutMs', type: milliseconds(1), default: DEFAULT_LIMITS.bodyTimeoutMs } satisfies Setting<number>,
  maxJsonDepth: { variable: 'AMENDER_MAX_JSON_DEPTH', fileKey: 'limits.maxJsonDepth', type: integer(1), default: DEFAULT_LIMITS.maxJsonDepth, check: atMostJsonDepth } satisfies Setting<number>,
  reviewDeadlineMs: { variable: 'AMENDER_REVIEW_DEADLINE_MS', fileKey: 'limits.reviewDeadlineMs', type: milliseconds(1), default: DEFAULT_LIMITS.reviewDeadlineMs } satisfies Setting<number>,
  maxValueBytes: { variable: 'AMENDER_MAX_VALUE_BYTES', fileKey: 'limits.maxValueBytes', type: integer(1), default: DEFAULT_LIMITS.maxValueBytes } satisfies Setting<number>,
  logLevel: { variable: 'AMENDER_LOG_LEVEL', fileKey: 'logLevel', type: oneOf(LOG_LEVELS), default: 'info' } satisfies Setting<LogLevel>,
  /**
   * A prefix left in the paths the server is handed (`/amender`): an API Gateway custom domain's mapping, a
   * Worker route under a path, an ingress that routes by path prefix without rewriting it. Taken off a path
   * that starts with it (src/adapters/base-path.ts).
   */
  basePath: { variable: 'AMENDER_BASE_PATH', fileKey: 'basePath', type: optional(pathPrefix), default: undefined } satisfies Setting<string | undefined>,
};

/** The config file's section read by src/clusters rather than by the table. */
export const CLUSTERS_SECTION = 'clusters';

export interface CommonSettings {
  /** Where the default set (`POST /mutate`) comes from. */
  policySources: string[];
  /** Seconds between refreshes of every set (0: load once). */
  refreshSeconds: number;
  /** The clusters served on `/clusters/{cluster}/...`. */
  clusters: ClusterConfig[];
  limits: Limits;
  logLevel: LogLevel;
  /** A path prefix the platform leaves in the path, taken off the paths that start with it; undefined: none. */
  basePath: string | undefined;
}

/** Reads the common settings (and the file's `clusters` section); problems are appended to `problems`. */
export function readCommonSettings(env: Readonly<Record<string, string | undefined>>, problems: string[], file?: Readonly<Record<string, unknown>>): CommonSettings {
  const s = readSettings(COMMON_SETTINGS, env, problems, file);
  let clusters: ClusterConfig[] = [];
  try {
    clusters = readClustersConfig(env, file?.[CLUSTERS_SECTION]);
  } catch (err) {
    if (!(err instanceof ClusterConfigError)) throw err;
    problems.push(...err.problems);
  }
  return {
    policySources: s.policySources,
    refreshSeconds: s.refreshSeconds,
    clusters,
    limits: { maxBodyBytes: s.maxBodyBytes, bodyTimeoutMs: s.bodyTimeoutMs, maxJsonDepth: s.maxJsonDepth, reviewDeadlineMs: s.reviewDeadlineMs, maxValueBytes: s.maxValueBytes },
    logLevel: s.logLevel,
    basePath: s.basePath,
  };
}
