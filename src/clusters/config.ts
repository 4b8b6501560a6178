/**
 * The clusters one Amender serves: each by name, with its own policy sources and its accepted secrets
 * (as hashes, see secrets.ts). From environment variables (the serverless way) and/or the `clusters` key
 * of the Node server's config file (AMENDER_CONFIG). Pure: environment and file value in, clusters or
 * every problem out.
 *
 * Environment:
 *   AMENDER_CLUSTERS=prod-eu,staging                      the cluster names
 *   AMENDER_CLUSTER_PROD_EU_SOURCES=s3://policies/prod-eu,bundled
 *   AMENDER_CLUSTER_PROD_EU_SECRET_HASHES=sha256:<hex>[,sha256:<hex>]   two during a rotation
 *   AMENDER_CLUSTER_PROD_EU_REFRESH_SECONDS=60            optional; else AMENDER_REFRESH_SECONDS
 * (the variable infix is the name upper-cased with `-` as `_`).
 *
 * Config file:
 *   clusters:
 *     prod-eu:
 *       sources: [s3://policies/prod-eu, bundled]
 *       secretHashes: [sha256:<hex>]
 *       refreshSeconds: 60
 *
 * A cluster in both: each variable that is set replaces that field of the file. Cluster names are
 * lowercase DNS labels (they are path segments and metric labels) and are not secret.
 */
import { isDNS1123Label } from '../k8s/index.js';
import { list, optional, quoted, readSettings, seconds, type Setting } from '../settings/index.js';
import { isSecretHash } from './secrets.js';

export interface ClusterConfig {
  name: string;
  /** Policy source URIs, in order (see src/sources/uri.ts). */
  sources: string[];
  /** Accepted secrets, as `sha256:<hex>`. */
  secretHashes: string[];
  /** Refresh interval of this cluster's sources; undefined = the default. */
  refreshSeconds?: number;
}

export class ClusterConfigError extends Error {
  override name = 'ClusterConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid cluster configuration:\n  ${problems.join('\n  ')}`);
  }
}

/** A cluster's name is a DNS-1123 label: it appears in the webhook path and in variable names. */
export function isClusterName(name: string): boolean {
  return isDNS1123Label(name).length === 0;
}
export const CLUSTERS_VARIABLE = 'AMENDER_CLUSTERS';
export const REFRESH_VARIABLE = 'AMENDER_REFRESH_SECONDS';
export const DEFAULT_REFRESH_SECONDS = 60;
/** Longest refresh interval accepted (a day): a larger value is surely a unit mistake. */
export const MAX_REFRESH_SECONDS = 86_400;

/** The variable names of one cluster (for docs and error messages). */
export function clusterVariables(name: string): { sources: string; secretHashes: string; refreshSeconds: string } {
  const key = name.toUpperCase().replace(/-/g, '_');
  return {
    sources: `AMENDER_CLUSTER_${key}_SOURCES`,
    secretHashes: `AMENDER_CLUSTER_${key}_SECRET_HASHES`,
    refreshSeconds: `AMENDER_CLUSTER_${key}_REFRESH_SECONDS`,
  };
}

/** Names of the environment variables read, patterns with `<NAME>` (for the README check). */
export const CLUSTER_ENVIRONMENT_VARIABLES: readonly string[] = [
  CLUSTERS_VARIABLE,
  REFRESH_VARIABLE,
  'AMENDER_CLUSTER_<NAME>_SOURCES',
  'AMENDER_CLUSTER_<NAME>_SECRET_HASHES',
  'AMENDER_CLUSTER_<NAME>_REFRESH_SECONDS',
];

/** One cluster's settings, for the reader of src/settings: its variables, and its keys in the file. */
function clusterSettings(name: string) {
  const vars = clusterVariables(name);
  const file = `clusters.${name}`;
  return {
    sources: { variable: vars.sources, fileKey: `${file}.sources`, type: optional(list), default: undefined } satisfies Setting<string[] | undefined>,
    secretHashes: { variable: vars.secretHashes, fileKey: `${file}.secretHashes`, type: optional(list), default: undefined } satisfies Setting<string[] | undefined>,
    refreshSeconds: { variable: vars.refreshSeconds, fileKey: `${file}.refreshSeconds`, type: optional(seconds(MAX_REFRESH_SECONDS)), default: undefined } satisfies Setting<number | undefined>,
  };
}

const FILE_FIELDS = ['sources', 'secretHashes', 'refreshSeconds'];

/** The names of the file's clusters; problems of its shape (not of the values, which the reader checks). */
function fileClusterNames(value: unknown, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push('config file key clusters: expected a mapping of cluster name to settings');
    return [];
  }
  const names: string[] = [];
  for (const [name, settings] of Object.entries(value as Record<string, unknown>)) {
    const where = `config file key clusters.${name}`;
    if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) {
      problems.push(`${where}: expected a mapping with ${FILE_FIELDS.join(', ')}`);
      continue;
    }
    for (const key of Object.keys(settings)) {
      if (!FILE_FIELDS.includes(key)) problems.push(`${where}: unknown key ${key} (known: ${FILE_FIELDS.join(', ')})`);
    }
    names.push(name);
  }
  return names;
}

/** The default policy set's name in metrics and logs; no cluster may take it. */
const DEFAULT_SET_NAME = 'default';

const CLUSTER_VARIABLE = /^AMENDER_CLUSTER_([A-Z0-9_]+)_(SOURCES|SECRET_HASHES|REFRESH_SECONDS)$/;

/**
 * Per-cluster variables set for a cluster that is not configured: a cluster left out of AMENDER_CLUSTERS
 * (or misspelled there) would otherwise be missing without a word, answering 404, where the config file
 * refuses a key it does not know.
 */
function strayClusterVariables(env: Readonly<Record<string, unknown>>, names: readonly string[]): string[] {
  const keys = new Set(names.map((n) => n.toUpperCase().replace(/-/g, '_')));
  return Object.keys(env)
    .filter((variable) => {
      const m = CLUSTER_VARIABLE.exec(variable);
      return m !== null && env[variable] !== undefined && !keys.has(m[1]);
    })
    .sort()
    .map((variable) => `${variable} is set, but no cluster ${CLUSTER_VARIABLE.exec(variable)![1].toLowerCase().replace(/_/g, '-')} is configured (${CLUSTERS_VARIABLE} or the config file's clusters)`);
}

/**
 * The configured clusters (possibly none). `fileClusters` is the value of the config file's `clusters`
 * key, already parsed from YAML/JSON. Throws ClusterConfigError listing every problem.
 */
export function readClustersConfig(env: Readonly<Record<string, string | undefined>>, fileClusters?: unknown): ClusterConfig[] {
  const problems: string[] = [];
  const fileNames = fileClusterNames(fileClusters, problems);
  const envNames = list.read(env[CLUSTERS_VARIABLE] ?? '') as string[];
  // A variable that is set replaces that field of the file's cluster (readSettings: the variable wins).
  const file = { clusters: fileClusters };
  const merged = new Map<string, { sources?: string[]; secretHashes?: string[]; refreshSeconds?: number }>();
  for (const name of new Set([...fileNames, ...envNames])) merged.set(name, readSettings(clusterSettings(name), env, problems, file));
  if (new Set(envNames).size !== envNames.length) problems.push(`${CLUSTERS_VARIABLE}: a cluster is named twice`);

  problems.push(...strayClusterVariables(env, [...merged.keys()]));

  const out: ClusterConfig[] = [];
  for (const [name, c] of merged) {
    const vars = clusterVariables(name);
    if (!isClusterName(name)) {
      problems.push(`cluster ${quoted(name)}: a name is 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit`);
      continue;
    }
    if (name === DEFAULT_SET_NAME) {
      problems.push(`cluster default: the name of the default policy set, which metrics (policy_set="default") and logs would not tell apart from it; choose another`);
      continue;
    }
    if (!c.sources || c.sources.length === 0) problems.push(`cluster ${name}: no policy source (${vars.sources} or clusters.${name}.sources)`);
    if (!c.secretHashes || c.secretHashes.length === 0) {
      problems.push(`cluster ${name}: no accepted secret hash (${vars.secretHashes} or clusters.${name}.secretHashes)`);
    } else {
      // Never echo the value: someone may have pasted the secret itself instead of its hash.
      c.secretHashes.forEach((h, i) => {
        if (!isSecretHash(h)) problems.push(`cluster ${name}: secret hash #${i + 1} is not of the form sha256:<64 lowercase hex digits> (store the hash of the secret, never the secret)`);
      });
    }
    out.push({ name, sources: c.sources ?? [], secretHashes: c.secretHashes ?? [], ...(c.refreshSeconds !== undefined ? { refreshSeconds: c.refreshSeconds } : {}) });
  }
  if (problems.length > 0) throw new ClusterConfigError(problems);
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
