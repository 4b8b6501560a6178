/**
 * Validation and compilation of a `ClusterPolicy` / `Policy` document into a frozen
 * CompiledKyvernoPolicy. Problems are reported with the field path inside the document
 * (`spec.rules[0].mutate.foreach[1].list`); a policy with problems is not compiled, and nothing thrown
 * escapes. Only mutate rules are kept; validate / generate / verifyImages rules are not this module's job.
 *
 * This module is the policy and rule shell; each part of a rule is compiled beside the code that runs it
 * (match/compile-match.ts, match/compile-conditions.ts, context/compile-context.ts,
 * patchers/compile-mutate.ts, patchers/compile-patches.ts, foreach/compile-foreach.ts), all writing to
 * one Report (compile-report.ts).
 */
import { documentDepthProblem, getOwn, hasOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../json/index.js';
import { autogenRules } from './autogen.js';
import { checkPolicy, checkRule, checkRuleContext, checkV2beta1Rule } from './validation/index.js';
import { documentVariableProblems } from './check-expressions.js';
import { Report, type AdmissionFinding, type PolicyProblem } from './compile-report.js';
import { compileContext } from './context/compile-context.js';
import { messageOf } from './errors.js';
import { checkElementVariables } from './foreach/compile-foreach.js';
import { compileConditions } from './match/compile-conditions.js';
import { blockNeedsRoles, compileMatch } from './match/compile-match.js';
import { compileMutate } from './patchers/compile-mutate.js';
import { templatedPatch } from './patchers/compile-patches.js';
import type { CompiledKyvernoPolicy, CompiledRule, KindSelector, MatchBlock, Mutation } from './types.js';
import { WebhookConditions } from './webhook-conditions.js';

export type { AdmissionFinding, PolicyProblem } from './compile-report.js';

/** References a policy set checks against its own documents (kinds it knows, ConfigMaps it holds). */
export interface PolicyReferences {
  /** Every `kinds` entry of a declared rule's match and exclude blocks. */
  readonly kinds: readonly { readonly path: string; readonly text: string; readonly selector: KindSelector }[];
  /** `configMap` context entries whose name and namespace hold no variable ('' = the policy's default). */
  readonly configMaps: readonly { readonly path: string; readonly namespace: string; readonly name: string }[];
}

export type CompileResult =
  | {
      readonly ok: true;
      readonly policy: CompiledKyvernoPolicy;
      readonly warnings: readonly PolicyProblem[];
      readonly findings: readonly AdmissionFinding[];
      readonly references: PolicyReferences;
    }
  | { readonly ok: false; readonly problems: readonly PolicyProblem[]; readonly warnings: readonly PolicyProblem[] };

export const KYVERNO_API_VERSIONS: readonly string[] = ['kyverno.io/v1', 'kyverno.io/v2beta1'];

/** True for documents this module compiles: kyverno.io ClusterPolicy / Policy. */
export function isKyvernoPolicyDocument(document: JsonValue): boolean {
  if (!isJsonObject(document)) return false;
  const apiVersion = getOwn(document, 'apiVersion');
  const kind = getOwn(document, 'kind');
  return typeof apiVersion === 'string' && apiVersion.startsWith('kyverno.io/') && (kind === 'ClusterPolicy' || kind === 'Policy');
}

/** Keys a too-deep path is followed through: the rule list and the mutate block's structure. */
const CLUSTER_POLICY_STRUCTURE: ReadonlySet<string> = new Set(['spec', 'rules', 'mutate', 'foreach']);

export function compileKyvernoPolicy(document: JsonValue): CompileResult {
  // Before any walker recurses into it: a document nested past the bound is refused by name, not by
  // whatever error a stack overflow surfaces as.
  const tooDeep = documentDepthProblem(document, CLUSTER_POLICY_STRUCTURE);
  if (tooDeep !== undefined) return { ok: false, problems: [tooDeep], warnings: [] };
  const report = new Report();
  try {
    const policy = compilePolicy(document, report);
    if (policy && report.problems.length === 0) {
      return {
        ok: true,
        policy: deepFreeze(policy),
        warnings: report.warnings,
        findings: report.findings,
        references: { kinds: report.kinds, configMaps: report.configMaps },
      };
    }
  } catch (error) {
    // A bug must not take the policy set down: report it against the document.
    report.error('', `internal error while compiling: ${messageOf(error)}`);
  }
  return { ok: false, problems: [...report.problems, ...report.findings.map(({ path, message }) => ({ path, message }))], warnings: report.warnings };
}

function compilePolicy(document: JsonValue, report: Report): CompiledKyvernoPolicy | undefined {
  if (!isJsonObject(document)) {
    report.error('', 'a policy must be an object');
    return undefined;
  }
  const apiVersion = getOwn(document, 'apiVersion');
  if (typeof apiVersion !== 'string' || !KYVERNO_API_VERSIONS.includes(apiVersion)) {
    report.error('apiVersion', `must be one of ${KYVERNO_API_VERSIONS.join(', ')}`);
  }
  const kind = getOwn(document, 'kind');
  if (kind !== 'ClusterPolicy' && kind !== 'Policy') {
    report.error('kind', 'must be ClusterPolicy or Policy');
    return undefined;
  }
  const metadata = getOwn(document, 'metadata');
  const name = isJsonObject(metadata) ? getOwn(metadata, 'name') : undefined;
  if (typeof name !== 'string' || name === '') report.error('metadata.name', 'is required');
  let namespace: string | undefined;
  if (kind === 'Policy') {
    const ns = isJsonObject(metadata) ? getOwn(metadata, 'namespace') : undefined;
    if (ns === undefined || ns === '') {
      namespace = 'default';
      report.warn('metadata.namespace', 'a Policy without a namespace is taken to live in namespace "default"');
    } else if (typeof ns !== 'string') {
      report.error('metadata.namespace', 'must be a string');
    } else {
      namespace = ns;
    }
  }
  const spec = getOwn(document, 'spec');
  if (!isJsonObject(spec)) {
    report.error('spec', 'is required and must be an object');
    return undefined;
  }
  const { failurePolicy, webhookConditions } = webhookSettings(spec, report);
  const applyRules = enumField(spec, 'applyRules', ['All', 'One'], 'All', 'spec', report);
  const admission = getOwn(spec, 'admission');
  if (admission !== undefined && typeof admission !== 'boolean') report.error('spec.admission', 'must be a boolean');
  const emitWarning = getOwn(spec, 'emitWarning');
  if (emitWarning !== undefined && emitWarning !== null && typeof emitWarning !== 'boolean') report.error('spec.emitWarning', 'must be a boolean');
  const rawRules = getOwn(spec, 'rules');
  if (!Array.isArray(rawRules) || rawRules.length === 0) {
    report.error('spec.rules', 'must be a non-empty list');
    return undefined;
  }
  const rules: CompiledRule[] = [];
  const names = new Set<string>();
  rawRules.forEach((raw, i) => {
    const path = `spec.rules[${i}]`;
    if (!isJsonObject(raw)) {
      report.error(path, 'a rule must be an object');
      return;
    }
    const ruleName = getOwn(raw, 'name');
    if (typeof ruleName !== 'string' || ruleName === '') report.error(`${path}.name`, 'is required');
    else if (names.has(ruleName)) report.error(`${path}.name`, `duplicate rule name "${ruleName}"`);
    else names.add(ruleName);
    checkRule(raw, path, report, kind === 'Policy');
    if (apiVersion === 'kyverno.io/v2beta1') checkV2beta1Rule(raw, path, report);
    if (!hasOwn(raw, 'mutate')) {
      // validate / generate / verifyImages rules are not mutate rules: a mutating webhook has no use for them.
      const what = ['validate', 'generate', 'verifyImages'].find((k) => hasOwn(raw, k));
      report.find(path, `${what ? `a ${what} rule` : 'a rule without mutate'}: Amender is a mutating webhook and runs mutate rules only; this rule is not run`, 'not-run');
      return;
    }
    const rule = compileRule(raw, path, report);
    if (rule) rules.push(rule);
  });
  checkPolicy(document, spec, rawRules, report);
  if (report.problems.length > 0) return undefined;
  // A generated rule repeats its source rule's findings and references: they are reported once.
  const declared = report.mark();
  const autogen = autogenRules(document, rawRules.filter(isJsonObject));
  // Kyverno runs the rules it generates instead of the policy's own `autogen-…` ones (see autogen.ts).
  if (autogen.dropsOwnAutogenRules) rules.splice(0, rules.length, ...rules.filter((r) => !r.name.startsWith('autogen-')));
  for (const generated of autogen.generated) {
    const rule = compileRule(generated.rule, `spec.rules (generated ${generated.kind} rule)`, report, generated.kind);
    if (rule) rules.push(rule);
  }
  report.rewind(declared);
  const policyName = name as string;
  return {
    kind,
    name: policyName,
    ...(namespace !== undefined ? { namespace } : {}),
    id: kind === 'ClusterPolicy' ? `ClusterPolicy/${policyName}` : `Policy/${namespace}/${policyName}`,
    failurePolicy,
    applyRules,
    admission: admission !== false,
    emitWarning: emitWarning === true,
    rules,
    ...(webhookConditions ? { webhookConditions } : {}),
  };
}

/**
 * What the policy's webhook is registered with: the failure policy (Kyverno's GetFailurePolicy:
 * `webhookConfiguration.failurePolicy` first, then the deprecated `failurePolicy`) and its matchConditions.
 */
function webhookSettings(spec: JsonObject, report: Report): { failurePolicy: 'Fail' | 'Ignore'; webhookConditions: WebhookConditions | undefined } {
  const raw = getOwn(spec, 'webhookConfiguration');
  if (raw !== undefined && raw !== null && !isJsonObject(raw)) report.error('spec.webhookConfiguration', 'must be an object');
  const webhook = isJsonObject(raw) ? raw : undefined;
  const ownFailurePolicy = enumField(spec, 'failurePolicy', ['Fail', 'Ignore'], 'Fail', 'spec', report);
  const webhookFailurePolicy = webhook ? getOwn(webhook, 'failurePolicy') : undefined;
  const failurePolicy =
    webhookFailurePolicy === undefined || webhookFailurePolicy === null
      ? ownFailurePolicy
      : enumField(webhook!, 'failurePolicy', ['Fail', 'Ignore'], 'Fail', 'spec.webhookConfiguration', report);
  checkWebhookFields(spec, webhook, report);
  return { failurePolicy, webhookConditions: WebhookConditions.compile(webhook, failurePolicy, report) };
}

/**
 * Kyverno's Spec.Validate (api/kyverno/v1/spec_types.go validateDeprecatedFields): a deprecated field beside
 * its webhookConfiguration replacement is refused, and a timeout must lie between 1 and 30 seconds.
 */
function checkWebhookFields(spec: JsonObject, webhook: JsonObject | undefined, report: Report): void {
  const isSetField = (holder: JsonObject | undefined, key: string) => holder !== undefined && getOwn(holder, key) !== undefined && getOwn(holder, key) !== null;
  for (const [own, replacement] of [
    ['webhookTimeoutSeconds', 'timeoutSeconds'],
    ['failurePolicy', 'failurePolicy'],
  ]) {
    if (isSetField(spec, own) && isSetField(webhook, replacement)) {
      report.error(`spec.${own}`, `remove the deprecated field and use spec.webhookConfiguration.${replacement} instead`);
    }
  }
  for (const [holder, key, at] of [
    [spec, 'webhookTimeoutSeconds', 'spec.webhookTimeoutSeconds'],
    [webhook, 'timeoutSeconds', 'spec.webhookConfiguration.timeoutSeconds'],
  ] as const) {
    if (!isSetField(holder, key)) continue;
    const seconds = getOwn(holder!, key);
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > 30) {
      report.error(at, 'the timeout value must be between 1 and 30 seconds');
    }
  }
}

function enumField<T extends string>(obj: JsonObject, key: string, allowed: readonly T[], fallback: T, at: string, report: Report): T {
  const value = getOwn(obj, key);
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  report.error(`${at}.${key}`, `must be one of ${allowed.join(', ')}`);
  return fallback;
}

/** Compiles one mutate rule (also used for rules generated for pod controllers). */
function compileRule(raw: JsonObject, path: string, report: Report, autogen?: 'autogen' | 'autogen-cronjob'): CompiledRule | undefined {
  const start = report.problems.length;
  const name = getOwn(raw, 'name');
  const matchRaw = getOwn(raw, 'match');
  let match: MatchBlock | undefined;
  if (matchRaw === undefined || matchRaw === null) report.error(`${path}.match`, 'is required');
  else match = compileMatch(matchRaw, `${path}.match`, report);
  const excludeRaw = getOwn(raw, 'exclude');
  const exclude = excludeRaw === undefined || excludeRaw === null ? undefined : compileMatch(excludeRaw, `${path}.exclude`, report, true);
  const body = compileRuleBody(raw, path, report);
  if (report.problems.length > start || !match || !body) return undefined;
  const needsRoles = blockNeedsRoles(match) || (exclude !== undefined && blockNeedsRoles(exclude));
  if (needsRoles) {
    report.find(
      `${path}.${blockNeedsRoles(match) ? 'match' : 'exclude'}`,
      'roles/clusterRoles: an admission request does not carry the requester\'s roles (Kyverno looks them up in the cluster\'s RBAC), so Amender cannot tell whether this rule applies: the rule is not run at admission',
      'not-run',
    );
  }
  return {
    name: typeof name === 'string' ? name : '',
    match,
    ...(exclude ? { exclude } : {}),
    ...body,
    ...(autogen ? { autogen } : {}),
    ...(needsRoles ? { needsRoles: true as const } : {}),
  };
}

type RuleBody = Pick<CompiledRule, 'context' | 'preconditions' | 'mutation' | 'substitutable' | 'json6902' | 'usesImages'>;

/**
 * A rule without its match block (as Kyverno's rule-level tests run them): it is applied to whatever
 * resource it is given.
 */
export function compileUnmatchedRule(raw: JsonObject): { ok: true; rule: CompiledRule } | { ok: false; problems: readonly PolicyProblem[] } {
  const report = new Report();
  const body = compileRuleBody(raw, 'rule', report);
  if (!body || report.problems.length > 0) return { ok: false, problems: report.problems };
  const name = getOwn(raw, 'name');
  return { ok: true, rule: deepFreeze({ name: typeof name === 'string' ? name : '', match: {}, ...body }) };
}

/** Everything but match/exclude. */
function compileRuleBody(raw: JsonObject, path: string, report: Report): RuleBody | undefined {
  const start = report.problems.length;
  const context = compileContext(getOwn(raw, 'context'), `${path}.context`, report);
  checkRuleContext(getOwn(raw, 'context'), `${path}.context`, report);
  const preconditions = compileConditions(getOwn(raw, 'preconditions'), `${path}.preconditions`, report);
  const mutateRaw = getOwn(raw, 'mutate');
  let mutation: Mutation = { type: 'patches' };
  if (mutateRaw !== undefined && !isJsonObject(mutateRaw)) {
    report.error(`${path}.mutate`, 'must be an object');
  } else if (mutateRaw !== undefined) {
    mutation = compileMutate(mutateRaw, `${path}.mutate`, report);
  } else {
    report.warn(`${path}.mutate`, 'empty mutate rule: it fails whenever it applies');
  }
  const substitutable: JsonObject = {};
  for (const key of Object.keys(raw)) if (key !== 'match' && key !== 'exclude') setOwn(substitutable, key, raw[key]);
  checkElementVariables(substitutable, path, report);
  for (const p of documentVariableProblems(substitutable, path)) report.find(p.path, p.message, 'expression');
  if (report.problems.length > start) return undefined;
  const json6902 = mutation.type === 'patches' && isJsonObject(mutateRaw) ? templatedPatch(mutateRaw, substitutable) : undefined;
  return {
    context,
    ...(preconditions ? { preconditions } : {}),
    mutation,
    substitutable,
    ...(json6902 ? { json6902 } : {}),
    usesImages: /\bimages\b/.test(JSON.stringify(substitutable)),
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
