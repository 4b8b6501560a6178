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

function list(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function seconds(value: unknown, where: string, problems: string[], min: number): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > MAX_REFRESH_SECONDS) {
    problems.push(`${where}: expected whole seconds from ${min} to ${MAX_REFRESH_SECONDS}, got ${JSON.stringify(value)}`);
    return undefined;
  }
  return n;
}

/** The default refresh interval in seconds (AMENDER_REFRESH_SECONDS; 0 = never refresh). */
export function readRefreshSeconds(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[REFRESH_VARIABLE];
  if (raw === undefined || raw === '') return DEFAULT_REFRESH_SECONDS;
  const problems: string[] = [];
  const n = seconds(raw, REFRESH_VARIABLE, problems, 0);
  if (n === undefined) throw new ClusterConfigError(problems);
  return n;
}

type Partial = { sources?: string[]; secretHashes?: string[]; refreshSeconds?: number };

const FILE_FIELDS = ['sources', 'secretHashes', 'refreshSeconds'];

function stringList(value: unknown, where: string, problems: string[]): string[] | undefined {
  if (typeof value === 'string') return list(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((v) => v.trim()).filter((v) => v !== '');
  problems.push(`${where}: expected a list of strings`);
  return undefined;
}

function readFileClusters(value: unknown, problems: string[]): Map<string, Partial> {
  const out = new Map<string, Partial>();
  if (value === undefined || value === null) return out;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push('config file key clusters: expected a mapping of cluster name to settings');
    return out;
  }
  for (const [name, settings] of Object.entries(value as Record<string, unknown>)) {
    const where = `config file key clusters.${name}`;
    if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) {
      problems.push(`${where}: expected a mapping with ${FILE_FIELDS.join(', ')}`);
      continue;
    }
    const s = settings as Record<string, unknown>;
    const cluster: Partial = {};
    for (const key of Object.keys(s)) {
      if (!FILE_FIELDS.includes(key)) problems.push(`${where}: unknown key ${key} (known: ${FILE_FIELDS.join(', ')})`);
    }
    if (s.sources !== undefined) cluster.sources = stringList(s.sources, `${where}.sources`, problems);
    if (s.secretHashes !== undefined) cluster.secretHashes = stringList(s.secretHashes, `${where}.secretHashes`, problems);
    if (s.refreshSeconds !== undefined) cluster.refreshSeconds = seconds(s.refreshSeconds, `${where}.refreshSeconds`, problems, 0);
    out.set(name, cluster);
  }
  return out;
}

/**
 * The configured clusters (possibly none). `fileClusters` is the value of the config file's `clusters`
 * key, already parsed from YAML/JSON. Throws ClusterConfigError listing every problem.
 */
export function readClustersConfig(env: Readonly<Record<string, string | undefined>>, fileClusters?: unknown): ClusterConfig[] {
  const problems: string[] = [];
  const merged = readFileClusters(fileClusters, problems);
  const envNames = list(env[CLUSTERS_VARIABLE] ?? '');
  for (const name of new Set(envNames)) {
    const vars = clusterVariables(name);
    const cluster = merged.get(name) ?? {};
    const sources = env[vars.sources];
    const hashes = env[vars.secretHashes];
    const refresh = env[vars.refreshSeconds];
    if (sources !== undefined && sources !== '') cluster.sources = list(sources);
    if (hashes !== undefined && hashes !== '') cluster.secretHashes = list(hashes);
    if (refresh !== undefined && refresh !== '') cluster.refreshSeconds = seconds(refresh, vars.refreshSeconds, problems, 0);
    merged.set(name, cluster);
  }
  if (new Set(envNames).size !== envNames.length) problems.push(`${CLUSTERS_VARIABLE}: a cluster is named twice`);

  const out: ClusterConfig[] = [];
  for (const [name, c] of merged) {
    const vars = clusterVariables(name);
    if (!isClusterName(name)) {
      problems.push(`cluster ${JSON.stringify(name)}: a name is 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit`);
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
