/**
 * The MutatingWebhookConfiguration a policy set needs (`amender webhook-config`): pure, data in and out.
 *
 *   deriveRules(set, crdEntries?) → DerivedRules      what the set can match, as webhook rules
 *   crdKinds(crdDocument) → KindEntry[]               the kinds a CRD of the set declares
 *   checkWebhookOptions(options)                     the options alone, before any policy is read
 *   webhookConfiguration(derived, options) → object   the manifest (throws WebhookConfigError)
 *   excludedNamespaceWarnings(derived, options)       policies that act only in an excluded namespace
 *   checkReviewDeadline(timeoutSeconds, deadlineMs?)  whether the server's review deadline fits the timeout
 *   intersectRule / mergeRules / ruleProblems         webhook rules as sets; the API server's rule checks
 */
export { checkReviewDeadline, maxReviewDeadlineMs, MIN_DEADLINE_MARGIN_MS, type DeadlineCheck } from './deadline.js';
export { deriveRules, type DerivedRules, type PolicyCoverage } from './derive.js';
export { builtinKindTable, crdKinds, type KindEntry } from './kinds.js';
export {
  checkWebhookOptions,
  checkWebhookUrl,
  DEFAULT_EXCLUDED_NAMESPACES,
  DEFAULT_TIMEOUT_SECONDS,
  excludedNamespaceWarnings,
  webhookConfiguration,
  WebhookConfigError,
  WebhookOptionError,
  type WebhookConfigOptions,
} from './manifest.js';
export { intersectRule, intersectRuleSets, mergeRules, normalizeRule, OPERATIONS, ruleProblems, type RuleScope, type WebhookRule } from './rules.js';
