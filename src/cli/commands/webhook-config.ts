import { stringify } from 'yaml';
import { checkReviewDeadline, checkWebhookOptions, crdKinds, deriveRules, DEFAULT_TIMEOUT_SECONDS, excludedNamespaceWarnings, webhookConfiguration, WebhookConfigError, WebhookOptionError, type DerivedRules } from '../../webhook-config/index.js';
import { flag, listOption, parseArgs, stringOption, UsageError } from '../args.js';
import { checkCaBundle } from '../ca-bundle.js';
import { CliInputError, describeFsError } from '../errors.js';
import type { CliCommand } from '../io.js';
import { formatProblems, loadPolicies } from '../load.js';

export const WEBHOOK_CONFIG_USAGE = `usage: amender webhook-config --url URL --policies PATH... [--name NAME] [--failure-policy Fail|Ignore]
                              [--timeout-seconds N] [--review-deadline-ms MS] [--reinvocation-policy Never|IfNeeded]
                              [--ca-bundle FILE] [--exclude-namespace NS...] [--json]
  Prints the MutatingWebhookConfiguration that sends a cluster's requests to Amender at URL, with rules
  that cover exactly what the policy set can match, so the API server calls Amender for nothing else.
  URL is https, without a query: https://HOST/mutate, or https://HOST/clusters/CLUSTER/SECRET/mutate.
  Defaults: --name amender; --failure-policy Fail when a policy that contributes rules says Fail (a
  MutatingAdmissionPolicy's default), else Ignore; --timeout-seconds 10; --review-deadline-ms: the
  server's AMENDER_REVIEW_DEADLINE_MS (default 8000), which must be at most 80% of the timeout and leave
  500 ms (an explicit value that does not fit is an error; the default gets a note); --reinvocation-policy IfNeeded
  when a contributing MutatingAdmissionPolicy says IfNeeded or a Kyverno ClusterPolicy/Policy contributes
  (Kyverno registers those IfNeeded), else Never; --exclude-namespace kube-system (add the
  namespace Amender runs in when it runs in the cluster); --ca-bundle: the CA that signed URL's
  certificate (omit it for a publicly trusted certificate). An option's value that is wrong (also a
  --review-deadline-ms that does not fit the timeout) is a wrong command line: exit 2.
  Kyverno kinds are turned into resources from the built-in kinds and the CustomResourceDefinitions found
  in --policies; a kind neither knows is an error (exit 1) unless written group/version/Kind, when its
  resource is guessed (the English plural CRD generators write, and Kubernetes' own guess where it
  differs), with a warning. Coverage and warnings go to stderr.
`;

function choice<T extends string>(value: string | undefined, allowed: readonly T[], option: string): T | undefined {
  if (value === undefined) return undefined;
  const found = allowed.find((a) => a.toLowerCase() === value.toLowerCase());
  if (!found) throw new UsageError(`--${option} must be one of ${allowed.join(', ')}`);
  return found;
}

/** A whole-number option from `min` (to `max`), or a UsageError naming the option and the value given. */
function wholeNumber(option: string, text: string, min: number, max?: number): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= (max ?? Number.MAX_SAFE_INTEGER))) {
    throw new UsageError(`--${option} ${text}: a whole number ${max !== undefined ? `from ${min} to ${max}` : `from ${min}`}`);
  }
  return n;
}

function summary(derived: DerivedRules): string {
  const lines = derived.policies.map((p) => `  ${p.policy}: ${p.rules.map((r) => `${r.operations.join('|')} ${r.apiGroups.map((g) => g || 'core').join('|')}/${r.apiVersions.join('|')} ${r.resources.join(',')}`).join('; ')}`);
  const idle = derived.idle.map((i) => `  not covered: ${i}`);
  return `amender webhook-config: ${derived.policies.length} polic${derived.policies.length === 1 ? 'y contributes' : 'ies contribute'} ${derived.rules.length} rule${derived.rules.length === 1 ? '' : 's'}:\n${[...lines, ...idle].join('\n')}\n`;
}

/** `amender webhook-config`: the webhook configuration a policy set needs. */
export const webhookConfigCommand: CliCommand = async (argv, io) => {
  const args = parseArgs(argv, {
    url: 'string',
    policies: 'list',
    name: 'string',
    'failure-policy': 'string',
    'timeout-seconds': 'string',
    'review-deadline-ms': 'string',
    'reinvocation-policy': 'string',
    'ca-bundle': 'string',
    'exclude-namespace': 'list',
    json: 'boolean',
  });
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${args.positionals[0]}`);
  const url = stringOption(args, 'url');
  if (url === undefined) throw new UsageError('--url URL is required');
  const paths = listOption(args, 'policies');
  if (paths.length === 0) throw new UsageError('--policies PATH... is required');
  const timeoutText = stringOption(args, 'timeout-seconds');
  const timeoutSeconds = timeoutText !== undefined ? wholeNumber('timeout-seconds', timeoutText, 1, 30) : DEFAULT_TIMEOUT_SECONDS;
  const deadlineText = stringOption(args, 'review-deadline-ms');
  const deadlineMs = deadlineText !== undefined ? wholeNumber('review-deadline-ms', deadlineText, 1) : undefined;
  // The review deadline must end before the API server's timeout (src/webhook-config/deadline.ts).
  const deadline = checkReviewDeadline(timeoutSeconds, deadlineMs);
  if (!deadline.fits && deadlineText !== undefined) throw new UsageError(`--review-deadline-ms ${deadlineText}: ${deadline.note}`);
  const failurePolicy = choice(stringOption(args, 'failure-policy'), ['Fail', 'Ignore'] as const, 'failure-policy');
  const reinvocationPolicy = choice(stringOption(args, 'reinvocation-policy'), ['Never', 'IfNeeded'] as const, 'reinvocation-policy');
  const caPath = stringOption(args, 'ca-bundle');
  let caBundlePem: string | undefined;
  const caWarnings: string[] = [];
  if (caPath !== undefined) {
    try {
      caBundlePem = await io.readFile(caPath);
    } catch (err) {
      throw new CliInputError(`--ca-bundle ${describeFsError(caPath, err)}`);
    }
    caWarnings.push(...checkCaBundle(caBundlePem, caPath));
  }

  const name = stringOption(args, 'name');
  const options = {
    url,
    ...(name !== undefined ? { name } : {}),
    ...(caBundlePem !== undefined ? { caBundlePem } : {}),
    ...(failurePolicy ? { failurePolicy } : {}),
    ...(reinvocationPolicy ? { reinvocationPolicy } : {}),
    timeoutSeconds,
    ...(args.options.has('exclude-namespace') ? { excludeNamespaces: listOption(args, 'exclude-namespace') } : {}),
  };
  // A value of the command line the API server would refuse is a wrong command line, as --failure-policy Maybe:
  // said before any policy is read.
  try {
    checkWebhookOptions(options);
  } catch (err) {
    if (err instanceof WebhookOptionError) throw new UsageError(err.message);
    throw err;
  }

  const { set, documents } = await loadPolicies(paths, io);
  if (set.problems.some((p) => p.effect === 'ignored')) io.err(`warning: documents left out of the policy set (they cover nothing):\n${formatProblems(set)}`);
  const crds = documents.filter((d) => d.kind === 'CustomResourceDefinition' && typeof d.apiVersion === 'string' && d.apiVersion.startsWith('apiextensions.k8s.io/'));
  const derived = deriveRules(set, crds.flatMap(crdKinds));
  for (const w of [...caWarnings, ...derived.warnings, ...excludedNamespaceWarnings(derived, options)]) io.err(`warning: ${w}\n`);
  if (derived.unresolved.length > 0) {
    throw new CliInputError(`cannot tell which resources these kinds are, so the rules would miss them:\n  ${derived.unresolved.join('\n  ')}`);
  }
  let manifest;
  try {
    manifest = webhookConfiguration(derived, options);
  } catch (err) {
    // Nothing to send: say why each policy covers nothing.
    if (err instanceof WebhookConfigError) throw new CliInputError([err.message, ...(derived.rules.length === 0 ? derived.idle.map((i) => `  not covered: ${i}`) : [])].join('\n'));
    throw err;
  }
  io.err(summary(derived));
  io.err(`${deadline.fits ? 'note' : 'warning'}: ${deadline.note}\n`);
  io.out(flag(args, 'json') ? JSON.stringify(manifest, null, 2) + '\n' : stringify(manifest, { lineWidth: 0, version: '1.1' }));
  return 0;
};
