/**
 * Settings of the serverless runtimes (AWS Lambda, Cloudflare Workers), read from their environment:
 * Lambda's environment variables, or a Worker's `env` (vars and secrets; a var written unquoted in
 * wrangler.toml arrives as a number or boolean and is read as written; bindings such as an R2 bucket are
 * objects and are ignored here). Pure: environment in, settings or every problem out.
 *
 *   AMENDER_POLICY_SOURCES    comma-separated source URIs of the default set (`POST /mutate`); default
 *                             `bundled`. Lambda: bundled, file://DIR, s3://bucket/prefix. Workers: bundled,
 *                             r2://BINDING/prefix.
 *   AMENDER_REFRESH_SECONDS   age after which a set is read again, checked on requests (default 60; 0 =
 *                             load once). Per cluster: AMENDER_CLUSTER_<NAME>_REFRESH_SECONDS.
 *   AMENDER_CLUSTERS, AMENDER_CLUSTER_<NAME>_SOURCES, _SECRET_HASHES   clusters (see src/clusters/config.ts)
 *   AMENDER_MAX_BODY_BYTES, AMENDER_BODY_TIMEOUT_MS, AMENDER_MAX_JSON_DEPTH   request limits
 *   AMENDER_REVIEW_DEADLINE_MS, AMENDER_MAX_VALUE_BYTES   per-review deadline (default 8000, below the
 *                             webhook's 10 s timeoutSeconds) and value-size bound (default 6 MiB), enforced
 *                             inside the engine: one review per invocation, under the platform's limits
 *   AMENDER_LOG_LEVEL         debug | info | warn | error (default info)
 *   AMENDER_BODY_BUDGET_MB    Workers only: MiB of request bodies an isolate holds at once (default 8; see
 *                             workers-handler.ts). A Lambda environment takes one request at a time.
 *   AMENDER_REFRESH_WAIT_MS   Lambda only: how long an invocation that started a due refresh waits for it
 *                             before returning (default 2000); an unfinished refresh goes on in the next
 *                             invocation (the environment is frozen between invocations).
 *   AMENDER_BASE_PATH         a path prefix the platform leaves in the path (`/amender`): a custom domain's API
 *                             mapping on Lambda, a route under a path on Workers; taken off a path that starts
 *                             with it (base-path.ts). A common setting: the Node server reads it too.
 */
import { CLUSTER_ENVIRONMENT_VARIABLES } from '../clusters/index.js';
import { COMMON_SETTINGS, readCommonSettings, type CommonSettings } from '../runtime/index.js';
import { assertNoProblems, integer, milliseconds, optional, readSettings, SettingsError, unknownVariables, variablesOf, type Setting } from '../settings/index.js';

export interface ServerlessConfig extends CommonSettings {
  refreshWaitMs: number;
  /** Workers: MiB of request bodies held at once; undefined: the platform's default. */
  bodyBudgetMb: number | undefined;
}

/** A configuration with problems (every one listed); the runtime's SettingsError. */
export { SettingsError as ServerlessConfigError };

export const DEFAULT_REFRESH_WAIT_MS = 2000;

/** Lambda's own setting (Workers hand a due refresh to `ctx.waitUntil` instead), and Workers'. */
const SERVERLESS_SETTINGS = {
  refreshWaitMs: { variable: 'AMENDER_REFRESH_WAIT_MS', type: milliseconds(0), default: DEFAULT_REFRESH_WAIT_MS } satisfies Setting<number>,
  bodyBudgetMb: { variable: 'AMENDER_BODY_BUDGET_MB', type: optional(integer(1)), default: undefined } satisfies Setting<number | undefined>,
};

/** Every variable read (cluster variables as patterns with `<NAME>`), for documentation checks. */
export const SERVERLESS_ENVIRONMENT_VARIABLES: readonly string[] = [
  ...variablesOf(COMMON_SETTINGS).filter((name) => !CLUSTER_ENVIRONMENT_VARIABLES.includes(name)),
  ...CLUSTER_ENVIRONMENT_VARIABLES,
  ...variablesOf(SERVERLESS_SETTINGS),
];

/**
 * The settings of an environment as text. A Worker's `env` also holds bindings (an R2 bucket: an object),
 * which are not settings; and wrangler binds a var written unquoted in wrangler.toml as its JSON value, so
 * `AMENDER_REFRESH_SECONDS = 30` arrives as the number 30 and `... = true` as a boolean: those are read as
 * written. A JSON list or object under an `AMENDER_` name (`AMENDER_POLICY_SOURCES = ["bundled"]`) is a
 * problem when `problems` is given, rather than a setting left at its default without a word.
 */
export function stringEnvironment(env: Readonly<Record<string, unknown>>, problems?: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(env)) {
    const value = env[key];
    if (typeof value === 'string') out[key] = value;
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') out[key] = String(value);
    else if (problems && key.startsWith('AMENDER_') && isJsonValue(value)) {
      problems.push(`${key}: expected text (a var in quotes, as in ${key} = "..."), got a JSON ${Array.isArray(value) ? 'list' : 'object'}`);
    }
  }
  return out;
}

/** A list or plain object, as a JSON var arrives; a binding is an instance of its class. */
function isJsonValue(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Reads the settings; throws SettingsError listing every problem. */
export function readServerlessConfig(environment: Readonly<Record<string, unknown>>): ServerlessConfig {
  const problems: string[] = [];
  const env = stringEnvironment(environment, problems);
  const common = readCommonSettings(env, problems);
  const own = readSettings(SERVERLESS_SETTINGS, env, problems);
  assertNoProblems(problems);
  return { ...common, ...own };
}

/**
 * An `AMENDER_` variable (or a Worker's string var) that no setting of this platform reads — a typo such as
 * AMENDER_REFERSH_SECONDS, which leaves its setting at the default: one warning each, for the log at
 * start, as the Node server logs them. `alsoKnown`: the platform's own variables (Lambda's S3 settings).
 */
export function unknownServerlessVariables(environment: Readonly<Record<string, unknown>>, alsoKnown: readonly string[] = []): string[] {
  return unknownVariables(stringEnvironment(environment), [...SERVERLESS_ENVIRONMENT_VARIABLES, ...alsoKnown], 'AMENDER_');
}
