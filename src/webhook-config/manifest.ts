/**
 * The MutatingWebhookConfiguration (admissionregistration.k8s.io/v1) that sends a cluster's requests to
 * an Amender URL: one webhook (one call per request, whatever the number of policies), the derived
 * rules, `matchPolicy: Equivalent` (the API server converts an object to a version the rules name, which
 * is how Amender's policies see the versions they were written for), no side effects, AdmissionReview
 * v1, and the system namespaces excluded so a failing webhook cannot block the cluster's own repair.
 */
import { base64Utf8 } from '../admission/index.js';
import type { JsonObject } from '../json/index.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../k8s/index.js';
import type { DerivedRules } from './derive.js';
import { ruleProblems, type WebhookRule } from './rules.js';

export interface WebhookConfigOptions {
  /** metadata.name of the configuration (default `amender`). */
  name?: string;
  /** The HTTPS URL of the mutate endpoint (`https://.../mutate`, `https://.../clusters/<c>/<secret>/mutate`). */
  url: string;
  /** PEM of the CA that signed the endpoint's certificate; omitted: the API server's system trust roots. */
  caBundlePem?: string;
  /** Default: Fail when any policy that contributes rules says Fail (MAP's default), else Ignore. */
  failurePolicy?: 'Fail' | 'Ignore';
  /** 1 to 30 (default 10). */
  timeoutSeconds?: number;
  /** Default: IfNeeded when a contributing policy asks for it (a MutatingAdmissionPolicy saying IfNeeded, any Kyverno ClusterPolicy/Policy), else Never. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  /** Namespaces never sent (default kube-system). */
  excludeNamespaces?: readonly string[];
}

export class WebhookConfigError extends Error {
  override name = 'WebhookConfigError';
}

/** An option's value the API server would refuse (`url`, `name`, `timeoutSeconds`, an excluded namespace). */
export class WebhookOptionError extends WebhookConfigError {
  override name = 'WebhookOptionError';
}

export const DEFAULT_TIMEOUT_SECONDS = 10;
export const DEFAULT_EXCLUDED_NAMESPACES: readonly string[] = ['kube-system'];

/**
 * The URL as the API server accepts it (webhook clientConfig.url: Go's url.Parse, then a host), or a
 * WebhookOptionError. The text is checked as written, before the WHATWG parser (URL), which mends what Go
 * refuses: it trims spaces, reads `https:h` and `https:///h` as a host, and lowers `%2e` in a host. The
 * manifest carries the text as given, so it must be what the API server will read.
 */
export function checkWebhookUrl(url: string): string {
  const refuse = (why: string): never => {
    throw new WebhookOptionError(`--url ${JSON.stringify(url)}: ${why}`);
  };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(url)) refuse('not a URL: a control character (a tab, a line break) is in it');
  if (/^\s|\s$/.test(url)) refuse('not a URL: it starts or ends with a space');
  if (/%(?![0-9a-fA-F]{2})/.test(url)) refuse('not a URL: a % that starts no escape (%XX)');
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1];
  if (authority && !/^[^@]*@/.test(authority) && !/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]+)(:[0-9]*)?$/.test(authority)) {
    refuse('the host is not a host name or an IP address');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookOptionError(`--url ${url}: not a URL`);
  }
  if (parsed.protocol === 'https:' && !authority) refuse('no host: the URL is https://host[:port][/path]');
  if (parsed.protocol !== 'https:') throw new WebhookOptionError(`--url ${url}: the API server calls webhooks over https only`);
  if (parsed.username || parsed.password) throw new WebhookOptionError(`--url ${url}: user information is not allowed in a webhook URL`);
  if (parsed.search || url.includes('?')) throw new WebhookOptionError(`--url ${url}: a webhook URL cannot have a query (put a cluster's secret in the path: /clusters/<cluster>/<secret>/mutate)`);
  if (parsed.hash || url.includes('#')) throw new WebhookOptionError(`--url ${url}: a webhook URL cannot have a fragment`);
  return url;
}

/** Webhook names must be fully qualified (at least three DNS labels). */
function webhookName(name: string): string {
  return name.split('.').length >= 3 ? name : `${name}.webhook.amender.dev`;
}

/**
 * The options as the API server would take them, checked before any policy is read (a wrong one is a wrong
 * command line, whatever the policies): a WebhookOptionError for the first that is not.
 */
export function checkWebhookOptions(options: WebhookConfigOptions): { name: string; url: string; timeoutSeconds: number; excluded: string[] } {
  const name = options.name ?? 'amender';
  if (isDNS1123Subdomain(name).length > 0) throw new WebhookOptionError(`--name ${name}: a name is a lowercase DNS subdomain`);
  const url = checkWebhookUrl(options.url);
  const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) throw new WebhookOptionError(`--timeout-seconds ${timeoutSeconds}: from 1 to 30`);
  const excluded = [...new Set(options.excludeNamespaces ?? DEFAULT_EXCLUDED_NAMESPACES)].sort();
  for (const ns of excluded) if (isDNS1123Label(ns).length > 0) throw new WebhookOptionError(`--exclude-namespace ${ns}: not a namespace name`);
  return { name, url, timeoutSeconds, excluded };
}

/**
 * The policies that act only in a namespace the webhook excludes (`--exclude-namespace`, kube-system by
 * default): the API server never sends them a request, so they never run.
 */
export function excludedNamespaceWarnings(derived: DerivedRules, options: WebhookConfigOptions): string[] {
  const { excluded } = checkWebhookOptions(options);
  return derived.policies
    .filter((p) => p.namespace !== undefined && excluded.includes(p.namespace))
    .map((p) => `${p.policy}: it acts only in namespace ${p.namespace}, which the webhook excludes (--exclude-namespace): it will never run`);
}

export function webhookConfiguration(derived: DerivedRules, options: WebhookConfigOptions): JsonObject {
  const { name, url, timeoutSeconds, excluded } = checkWebhookOptions(options);
  if (derived.rules.length === 0) throw new WebhookConfigError('the policy set matches no request: there is nothing to send to Amender');
  const problems = derived.rules.flatMap((r, i) => ruleProblems(r, `webhooks[0].rules[${i}]`));
  if (problems.length > 0) throw new WebhookConfigError(`internal error: the derived rules are invalid:\n  ${problems.join('\n  ')}`);

  const failurePolicy = options.failurePolicy ?? (derived.policies.some((p) => p.failurePolicy === 'Fail') ? 'Fail' : 'Ignore');
  const reinvocationPolicy = options.reinvocationPolicy ?? (derived.policies.some((p) => p.reinvocationPolicy === 'IfNeeded') ? 'IfNeeded' : 'Never');
  const rule = (r: WebhookRule): JsonObject => ({ operations: r.operations, apiGroups: r.apiGroups, apiVersions: r.apiVersions, resources: r.resources, scope: r.scope });
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name, labels: { 'app.kubernetes.io/name': 'amender', 'app.kubernetes.io/managed-by': 'amender-webhook-config' } },
    webhooks: [
      {
        name: webhookName(name),
        admissionReviewVersions: ['v1'],
        clientConfig: { url, ...(options.caBundlePem !== undefined ? { caBundle: base64Utf8(options.caBundlePem) } : {}) },
        rules: derived.rules.map(rule),
        matchPolicy: 'Equivalent',
        ...(excluded.length > 0 ? { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: excluded }] } } : {}),
        failurePolicy,
        sideEffects: 'None',
        timeoutSeconds,
        reinvocationPolicy,
      },
    ],
  };
}
