/**
 * Validation and compilation of a `ClusterPolicy` / `Policy` document into a frozen
 * CompiledKyvernoPolicy. Problems are reported with the field path inside the document
 * (`spec.rules[0].mutate.foreach[1].list`); a policy with problems is not compiled, and nothing thrown
 * escapes. Only mutate rules are kept; validate / generate / verifyImages rules are not this module's job.
 */
import { getOwn, hasOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../json/index.js';
import { isValidateOnly, parseAnchor } from './patchers/anchors.js';
import { autogenRules } from './autogen.js';
import { checkPolicy, checkRule, checkRuleContext } from './validation/index.js';
import { documentVariableProblems, jmesPathProblem } from './check-expressions.js';
import { messageOf } from './errors.js';
import { compile as compileJmesPath } from './jmespath/index.js';
import { parseKindSelector } from './match/kinds.js';
import { normalizeOperator } from './match/operators.js';
import { compilePatchTemplate } from './patchers/patch-template.js';
import { compileSelector } from './match/selector.js';
import type {
  CompiledKyvernoPolicy,
  CompiledRule,
  Condition,
  ConditionBlock,
  ContextEntry,
  ForeachEntry,
  KindSelector,
  MatchBlock,
  Mutation,
  ResourceFilter,
  Subject,
  TemplatedPatch,
} from './types.js';
import type { PatchTemplate } from './patchers/patch-template.js';

export interface PolicyProblem {
  /** Field path inside the document, e.g. `spec.rules[2].mutate.patchesJson6902`. */
  readonly path: string;
  readonly message: string;
}

/**
 * Something that compiles but would fail, or do nothing, at admission (issue 10). The policy compiles
 * (a caller that runs it directly sees the failure at evaluation, as before); a policy set decides what
 * to do by `kind` (src/policyset, README "What cannot run off-cluster"):
 * - `expression`: a JMESPath expression that does not parse or calls an unknown function — every request
 *   reaching it fails. The set refuses the policy (unless built with `compileErrors: 'keep'`).
 * - `cluster`: a context entry only a cluster can fill (`apiCall`, `imageRegistry`, `globalReference`) —
 *   every request the rule matches fails. The set refuses the policy, unless context values stand in
 *   for such entries (`amender test`, `amender apply --values-file/--set`, as Kyverno's CLI).
 * - `required`: what Kyverno refuses when the policy is created: a match filter without `kinds`, a
 *   top-level `patchesJson6902` that does not decode. The set refuses the policy.
 * - `variable`: a `{{ }}` variable Kyverno's policy validation does not know (validation/
 *   invalid-variables.ts): nothing at admission defines it. The set refuses the policy, unless it is
 *   told to keep it (`BuildOptions.unknownVariables`: `amender apply` and `test`, whose values may define
 *   any variable).
 * - `not-run`: the rule never runs at admission (`mutate.targets`; `roles`/`clusterRoles`, which an
 *   admission request does not carry, unless the caller gives them; validate / generate / verifyImages
 *   rules). The policy stays in force without that rule.
 * A `configMap` entry the set's documents do not hold is a `cluster` problem the set adds itself
 * (`references.configMaps`), as is an unknown kind a kept problem (`references.kinds`).
 */
export interface AdmissionFinding extends PolicyProblem {
  readonly kind: 'expression' | 'cluster' | 'required' | 'variable' | 'not-run';
}

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

class Report {
  readonly problems: PolicyProblem[] = [];
  readonly warnings: PolicyProblem[] = [];
  readonly findings: AdmissionFinding[] = [];
  readonly kinds: { path: string; text: string; selector: KindSelector }[] = [];
  readonly configMaps: { path: string; namespace: string; name: string }[] = [];
  error(path: string, message: string): void {
    this.problems.push({ path, message });
  }
  warn(path: string, message: string): void {
    this.warnings.push({ path, message });
  }
  find(path: string, message: string, kind: AdmissionFinding['kind']): void {
    this.findings.push({ path, message, kind });
  }
  hasFinding(path: string, kind: AdmissionFinding['kind']): boolean {
    return this.findings.some((f) => f.path === path && f.kind === kind);
  }
  /** Where findings and references stand, to drop what a generated rule repeats of its source rule. */
  mark(): [number, number, number] {
    return [this.findings.length, this.kinds.length, this.configMaps.length];
  }
  rewind([findings, kinds, configMaps]: [number, number, number]): void {
    this.findings.length = findings;
    this.kinds.length = kinds;
    this.configMaps.length = configMaps;
  }
}

export function compileKyvernoPolicy(document: JsonValue): CompileResult {
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
  const failurePolicy = enumField(spec, 'failurePolicy', ['Fail', 'Ignore'], 'Fail', 'spec', report);
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
    checkRule(raw, path, report);
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
  for (const generated of autogenRules(document, rawRules.filter(isJsonObject))) {
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
  };
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

function filterNeedsRoles(f: ResourceFilter): boolean {
  return (f.roles?.length ?? 0) > 0 || (f.clusterRoles?.length ?? 0) > 0;
}

function blockNeedsRoles(block: MatchBlock): boolean {
  return [...(block.any ?? []), ...(block.all ?? []), ...(block.single ? [block.single] : [])].some(filterNeedsRoles);
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

/** A plain rule's JSON patch parsed once, when it is the patch that applies (no strategic merge). */
function templatedPatch(mutate: JsonObject, substitutable: JsonObject): TemplatedPatch | undefined {
  const text = getOwn(mutate, 'patchesJson6902');
  const template = patchTemplateOf(getOwn(mutate, 'patchStrategicMerge'), text);
  if (!template) return undefined;
  const restMutate: JsonObject = {};
  for (const key of Object.keys(mutate)) if (key !== 'patchesJson6902') setOwn(restMutate, key, mutate[key]);
  const rest: JsonObject = {};
  for (const key of Object.keys(substitutable)) setOwn(rest, key, key === 'mutate' ? restMutate : substitutable[key]);
  return { text: text as string, template, rest };
}

/** The parsed-once form of the JSON patch that applies: none when a strategic merge wins or there is no text. */
function patchTemplateOf(psm: JsonValue | undefined, json: JsonValue | undefined): PatchTemplate | undefined {
  if ((psm !== undefined && psm !== null) || typeof json !== 'string' || json === '') return undefined;
  return compilePatchTemplate(json);
}

function compileMutate(mutate: JsonObject, path: string, report: Report): Mutation {
  const targets = getOwn(mutate, 'targets');
  if (targets !== undefined && targets !== null) {
    report.find(
      `${path}.targets`,
      'mutate-existing rule (targets): Kyverno runs it in its background controller, which no admission webhook can do; the rule is not run',
      'not-run',
    );
    return { type: 'targets' };
  }
  const psm = getOwn(mutate, 'patchStrategicMerge');
  const json = getOwn(mutate, 'patchesJson6902');
  const foreach = getOwn(mutate, 'foreach');
  if (psm !== undefined && psm !== null) checkOverlay(psm, `${path}.patchStrategicMerge`, report);
  if (json !== undefined && json !== null && typeof json !== 'string') report.error(`${path}.patchesJson6902`, 'must be a string (YAML or JSON text)');
  if (foreach !== undefined && foreach !== null) {
    if (psm !== undefined || json !== undefined) report.warn(path, 'foreach is used; patchStrategicMerge / patchesJson6902 beside it are ignored');
    return { type: 'foreach', entries: compileForeach(foreach, `${path}.foreach`, report) };
  }
  if (psm !== undefined && psm !== null && json !== undefined && json !== null) {
    report.warn(path, 'both patchStrategicMerge and patchesJson6902 are set; patchStrategicMerge is applied, patchesJson6902 ignored');
  }
  if ((psm === undefined || psm === null) && (json === undefined || json === null || json === '')) {
    report.warn(path, 'empty mutate rule: it fails whenever it applies');
  }
  return { type: 'patches' };
}

function checkOverlay(overlay: JsonValue, path: string, report: Report): void {
  if (!isJsonObject(overlay)) {
    report.error(path, 'must be an object');
    return;
  }
  const visit = (value: JsonValue, at: string) => {
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${at}[${i}]`));
    else if (isJsonObject(value)) {
      for (const key of Object.keys(value)) {
        if (isValidateOnly(parseAnchor(key))) {
          report.error(`${at}.${key}`, `"${key}" is a validate-only anchor; mutate overlays support +(key), (key) and <(key)`);
        }
        visit(value[key], `${at}.${key}`);
      }
    }
  };
  visit(overlay, path);
}

/** Calls `each` for every object of a list field, reporting what is not a list or not an object. */
function eachObject(raw: JsonValue, path: string, report: Report, nonEmpty: boolean, each: (entry: JsonObject, at: string) => void): void {
  if (!Array.isArray(raw) || (nonEmpty && raw.length === 0)) {
    report.error(path, nonEmpty ? 'must be a non-empty list' : 'must be a list');
    return;
  }
  raw.forEach((entry, i) => {
    const at = `${path}[${i}]`;
    if (isJsonObject(entry)) each(entry, at);
    else report.error(at, 'must be an object');
  });
}

function compileForeach(raw: JsonValue, path: string, report: Report): ForeachEntry[] {
  const entries: ForeachEntry[] = [];
  eachObject(raw, path, report, true, (entry, at) => {
    const list = getOwn(entry, 'list');
    if (typeof list !== 'string' || list.trim() === '') {
      report.error(`${at}.list`, 'must be a JMESPath expression (a string)');
    } else {
      checkJmesPath(list, `${at}.list`, report);
    }
    const order = getOwn(entry, 'order');
    if (order !== undefined && order !== 'Ascending' && order !== 'Descending') report.error(`${at}.order`, 'must be Ascending or Descending');
    const context = compileContext(getOwn(entry, 'context'), `${at}.context`, report);
    const preconditions = compileConditions(getOwn(entry, 'preconditions'), `${at}.preconditions`, report);
    const psm = getOwn(entry, 'patchStrategicMerge');
    const json = getOwn(entry, 'patchesJson6902');
    if (psm !== undefined && psm !== null) checkOverlay(psm, `${at}.patchStrategicMerge`, report);
    if (json !== undefined && json !== null && typeof json !== 'string') report.error(`${at}.patchesJson6902`, 'must be a string (YAML or JSON text)');
    const patches: JsonObject = {};
    if (psm !== undefined) patches.patchStrategicMerge = psm;
    if (json !== undefined) patches.patchesJson6902 = json;
    const nestedRaw = getOwn(entry, 'foreach');
    let nested: ForeachEntry[] | undefined;
    if (nestedRaw !== undefined && nestedRaw !== null) {
      if (context.length > 0 || preconditions || Object.keys(patches).length > 0) {
        report.error(at, 'an entry with a nested foreach may not have its own context, preconditions or patches');
      }
      nested = compileForeach(nestedRaw, `${at}.foreach`, report);
    }
    const patchTemplate = patchTemplateOf(psm, json);
    entries.push({
      list: typeof list === 'string' ? list : '',
      ...(order === 'Ascending' || order === 'Descending' ? { order } : {}),
      context,
      ...(preconditions ? { preconditions } : {}),
      patches,
      hasStrategicMerge: psm !== undefined && psm !== null,
      ...(patchTemplate ? { patchTemplate } : {}),
      ...(nested ? { foreach: nested } : {}),
    });
  });
  return entries;
}

/**
 * A bare JMESPath field: a syntax error makes the policy invalid (as it always has); an unknown function
 * is an `expression` finding. Text with variables is checked once they are substituted (its variables
 * are checked with the rest of the rule).
 */
function checkJmesPath(expression: string, path: string, report: Report): void {
  if (expression.includes('{{')) return;
  try {
    compileJmesPath(expression);
  } catch (error) {
    report.error(path, `invalid JMESPath expression: ${messageOf(error)}`);
    return;
  }
  const problem = jmesPathProblem(expression);
  if (problem) report.find(path, problem, 'expression');
}

function compileContext(raw: JsonValue | undefined, path: string, report: Report): ContextEntry[] {
  if (raw === undefined || raw === null) return [];
  const out: ContextEntry[] = [];
  eachObject(raw, path, report, false, (entry, at) => {
    const name = getOwn(entry, 'name');
    if (typeof name !== 'string' || name === '') {
      report.error(`${at}.name`, 'is required');
      return;
    }
    const kinds = ['variable', 'configMap', 'apiCall', 'imageRegistry', 'globalReference'].filter((k) => {
      const v = getOwn(entry, k);
      return v !== undefined && v !== null;
    });
    if (kinds.length !== 1) {
      report.error(at, 'must have exactly one of variable, configMap, apiCall, imageRegistry, globalReference');
      return;
    }
    const spec = getOwn(entry, kinds[0]);
    if (!isJsonObject(spec)) {
      report.error(`${at}.${kinds[0]}`, 'must be an object');
      return;
    }
    switch (kinds[0]) {
      case 'variable': {
        const jmesPath = getOwn(spec, 'jmesPath');
        if (jmesPath !== undefined && typeof jmesPath !== 'string') report.error(`${at}.variable.jmesPath`, 'must be a string');
        if (typeof jmesPath === 'string' && jmesPath !== '') checkJmesPath(jmesPath, `${at}.variable.jmesPath`, report);
        const value = getOwn(spec, 'value');
        if (value === undefined && (jmesPath === undefined || jmesPath === '')) {
          report.error(`${at}.variable`, 'needs a value or a jmesPath');
        }
        const fallback = getOwn(spec, 'default');
        out.push({
          name,
          type: 'variable',
          ...(value !== undefined ? { value } : {}),
          ...(typeof jmesPath === 'string' && jmesPath !== '' ? { jmesPath } : {}),
          ...(fallback !== undefined ? { default: fallback } : {}),
        });
        break;
      }
      case 'configMap': {
        const cmName = getOwn(spec, 'name');
        const ns = getOwn(spec, 'namespace') ?? '';
        if (typeof cmName !== 'string' || cmName === '') report.error(`${at}.configMap.name`, 'is required');
        if (typeof ns !== 'string') report.error(`${at}.configMap.namespace`, 'must be a string');
        if (typeof cmName === 'string' && cmName !== '' && typeof ns === 'string' && !cmName.includes('{{') && !ns.includes('{{')) {
          report.configMaps.push({ path: `${at}.configMap`, namespace: ns, name: cmName });
        }
        out.push({ name, type: 'configMap', configMapName: String(cmName ?? ''), namespace: typeof ns === 'string' ? ns : '' });
        break;
      }
      case 'apiCall': {
        const urlPath = getOwn(spec, 'urlPath') ?? '';
        const service = getOwn(spec, 'service');
        if (typeof urlPath !== 'string' || (urlPath === '' && service === undefined)) report.error(`${at}.apiCall.urlPath`, 'is required');
        const method = getOwn(spec, 'method') ?? 'GET';
        if (method !== 'GET' && method !== 'POST') report.error(`${at}.apiCall.method`, 'must be GET or POST');
        const jmesPath = getOwn(spec, 'jmesPath');
        if (jmesPath !== undefined && typeof jmesPath !== 'string') report.error(`${at}.apiCall.jmesPath`, 'must be a string');
        if (typeof jmesPath === 'string' && jmesPath !== '') checkJmesPath(jmesPath, `${at}.apiCall.jmesPath`, report);
        report.find(
          `${at}.apiCall`,
          service !== undefined
            ? `context entry "${name}": apiCall.service makes an HTTP call to a service at admission; Amender makes no such calls, so every request the rule matches would fail`
            : `context entry "${name}": apiCall reads the cluster's API, which Amender does not reach, so every request the rule matches would fail`,
          'cluster',
        );
        const data = getOwn(spec, 'data');
        const fallback = getOwn(spec, 'default');
        out.push({
          name,
          type: 'apiCall',
          urlPath: typeof urlPath === 'string' ? urlPath : '',
          method: method === 'POST' ? 'POST' : 'GET',
          ...(data !== undefined ? { data: requestBody(data) } : {}),
          ...(typeof jmesPath === 'string' ? { jmesPath } : {}),
          ...(fallback !== undefined ? { default: fallback } : {}),
          ...(service !== undefined ? { service } : {}),
        });
        break;
      }
      default:
        report.find(
          `${at}.${kinds[0]}`,
          kinds[0] === 'imageRegistry'
            ? `context entry "${name}": imageRegistry fetches image data from a registry at admission; Amender makes no such calls, so every request the rule matches would fail`
            : `context entry "${name}": globalReference reads Kyverno's GlobalContextEntry objects, which only exist in a cluster, so every request the rule matches would fail`,
          'cluster',
        );
        out.push({ name, type: 'unsupported', what: kinds[0] });
    }
  });
  return out;
}

/** apiCall `data` is a list of `{key, value}`; the request body is the object they form. */
function requestBody(data: JsonValue): JsonValue {
  if (!Array.isArray(data)) return data;
  const body: JsonObject = {};
  for (const item of data) {
    if (isJsonObject(item) && typeof getOwn(item, 'key') === 'string') setOwn(body, getOwn(item, 'key') as string, getOwn(item, 'value') ?? null);
  }
  return body;
}

function compileConditions(raw: JsonValue | undefined, path: string, report: Report): ConditionBlock | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (Array.isArray(raw)) return { all: compileConditionList(raw, path, report) };
  if (!isJsonObject(raw)) {
    report.error(path, 'must be an object with any/all, or a list of conditions');
    return undefined;
  }
  const any = getOwn(raw, 'any');
  const all = getOwn(raw, 'all');
  const block: { any?: Condition[]; all?: Condition[] } = {};
  if (any !== undefined && any !== null) {
    if (!Array.isArray(any)) report.error(`${path}.any`, 'must be a list');
    else if (any.length > 0) block.any = compileConditionList(any, `${path}.any`, report);
  }
  if (all !== undefined && all !== null) {
    if (!Array.isArray(all)) report.error(`${path}.all`, 'must be a list');
    else if (all.length > 0) block.all = compileConditionList(all, `${path}.all`, report);
  }
  return block.any || block.all ? block : undefined;
}

function compileConditionList(raw: JsonValue[], path: string, report: Report): Condition[] {
  const out: Condition[] = [];
  raw.forEach((c, i) => {
    const at = `${path}[${i}]`;
    if (!isJsonObject(c)) {
      report.error(at, 'a condition must be an object');
      return;
    }
    const op = getOwn(c, 'operator');
    const operator = typeof op === 'string' ? normalizeOperator(op) : undefined;
    if (!operator) {
      report.error(`${at}.operator`, `unknown operator ${JSON.stringify(op ?? null)}`);
      return;
    }
    out.push({ key: getOwn(c, 'key') ?? null, operator, value: getOwn(c, 'value') ?? null });
  });
  return out;
}

function compileMatch(raw: JsonValue, path: string, report: Report, isExclude = false): MatchBlock | undefined {
  if (!isJsonObject(raw)) {
    report.error(path, 'must be an object');
    return undefined;
  }
  const any = getOwn(raw, 'any');
  const all = getOwn(raw, 'all');
  const filters = (list: JsonValue, at: string) => {
    if (!Array.isArray(list)) {
      report.error(at, 'must be a list');
      return [];
    }
    return list.map((f, i) => compileFilter(f, `${at}[${i}]`, report));
  };
  // Kyverno refuses a match filter without kinds ("the kind attribute is mandatory when working with the
  // resources element"); an exclude filter may leave them out.
  const requireKinds = (f: ResourceFilter, at: string) => {
    if (!isExclude && !f.empty && !f.kinds) {
      report.find(`${at}.resources.kinds`, 'is required: Kyverno refuses a match filter that names no kinds (at least one kind must be given)', 'required');
    }
    return f;
  };
  const checked = (list: JsonValue, at: string) => filters(list, at).map((f, i) => requireKinds(f, `${at}[${i}]`));
  if (any !== undefined && any !== null && (!Array.isArray(any) || any.length > 0)) return { any: checked(any, `${path}.any`) };
  if (all !== undefined && all !== null && (!Array.isArray(all) || all.length > 0)) return { all: checked(all, `${path}.all`) };
  const single = compileFilter(raw, path, report);
  if (single.empty && !isExclude) report.error(path, 'must select something (resources, subjects, roles or clusterRoles)');
  return { single: requireKinds(single, path) };
}

function stringList(value: JsonValue | undefined, path: string, report: Report): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    report.error(path, 'must be a list of strings');
    return undefined;
  }
  return value.length > 0 ? (value as string[]) : undefined;
}

function compileFilter(raw: JsonValue, path: string, report: Report): ResourceFilter {
  if (!isJsonObject(raw)) {
    report.error(path, 'must be an object');
    return { empty: true };
  }
  const resources = getOwn(raw, 'resources');
  const r = isJsonObject(resources) ? resources : {};
  if (resources !== undefined && resources !== null && !isJsonObject(resources)) report.error(`${path}.resources`, 'must be an object');
  const at = `${path}.resources`;
  const kindStrings = stringList(getOwn(r, 'kinds'), `${at}.kinds`, report);
  const kinds: KindSelector[] = [];
  kindStrings?.forEach((k, i) => {
    const parsed = parseKindSelector(k);
    if (parsed) {
      kinds.push(parsed);
      report.kinds.push({ path: `${at}.kinds[${i}]`, text: k, selector: parsed });
    } else report.error(`${at}.kinds[${i}]`, `"${k}" is not a kind (Kind, version/Kind or group/version/Kind, optionally /subresource)`);
  });
  const name = getOwn(r, 'name');
  if (name !== undefined && name !== null && typeof name !== 'string') report.error(`${at}.name`, 'must be a string');
  const annotationsRaw = getOwn(r, 'annotations');
  let annotations: [string, string][] | undefined;
  if (annotationsRaw !== undefined && annotationsRaw !== null) {
    if (!isJsonObject(annotationsRaw) || !Object.values(annotationsRaw).every((v) => typeof v === 'string')) {
      report.error(`${at}.annotations`, 'must be a map of strings');
    } else if (Object.keys(annotationsRaw).length > 0) {
      annotations = Object.entries(annotationsRaw) as [string, string][];
    }
  }
  const selectorOf = (key: string) => {
    const s = getOwn(r, key);
    if (s === undefined || s === null) return undefined;
    const compiled = compileSelector(s);
    if (typeof compiled === 'string') {
      report.error(`${at}.${key}`, compiled);
      return undefined;
    }
    return compiled;
  };
  const selector = selectorOf('selector');
  const namespaceSelector = selectorOf('namespaceSelector');
  const names = stringList(getOwn(r, 'names'), `${at}.names`, report);
  const namespaces = stringList(getOwn(r, 'namespaces'), `${at}.namespaces`, report);
  const operations = stringList(getOwn(r, 'operations'), `${at}.operations`, report);
  const roles = stringList(getOwn(raw, 'roles'), `${path}.roles`, report);
  const clusterRoles = stringList(getOwn(raw, 'clusterRoles'), `${path}.clusterRoles`, report);
  const subjects = compileSubjects(getOwn(raw, 'subjects'), `${path}.subjects`, report);
  const filter: ResourceFilter = {
    ...(kinds.length > 0 ? { kinds } : {}),
    ...(typeof name === 'string' && name !== '' ? { name } : {}),
    ...(names ? { names } : {}),
    ...(namespaces ? { namespaces } : {}),
    ...(annotations ? { annotations } : {}),
    ...(selector ? { selector } : {}),
    ...(namespaceSelector ? { namespaceSelector } : {}),
    ...(operations ? { operations } : {}),
    ...(roles ? { roles } : {}),
    ...(clusterRoles ? { clusterRoles } : {}),
    ...(subjects ? { subjects } : {}),
    empty: false,
  };
  return { ...filter, empty: Object.keys(filter).length === 1 };
}

function compileSubjects(raw: JsonValue | undefined, path: string, report: Report): Subject[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    report.error(path, 'must be a list');
    return undefined;
  }
  const out: Subject[] = [];
  raw.forEach((s, i) => {
    const kind = isJsonObject(s) ? getOwn(s, 'kind') : undefined;
    const name = isJsonObject(s) ? getOwn(s, 'name') : undefined;
    const namespace = isJsonObject(s) ? getOwn(s, 'namespace') : undefined;
    if (kind !== 'User' && kind !== 'Group' && kind !== 'ServiceAccount') {
      report.error(`${path}[${i}].kind`, 'must be User, Group or ServiceAccount');
    } else if (typeof name !== 'string' || name === '') {
      report.error(`${path}[${i}].name`, 'is required');
    } else {
      out.push({ kind, name, namespace: typeof namespace === 'string' ? namespace : '' });
    }
  });
  return out.length > 0 ? out : undefined;
}

/** `element` / `elementIndex` variables outside foreach (Kyverno refuses such policies). */
function checkElementVariables(rule: JsonObject, path: string, report: Report): void {
  const mutate = getOwn(rule, 'mutate');
  const outside: JsonObject = { ...rule };
  if (isJsonObject(mutate)) {
    const { foreach: _ignored, ...rest } = mutate;
    outside.mutate = rest;
  }
  const text = JSON.stringify(outside);
  if (/\{\{-?\s*element/.test(text)) report.error(path, 'element / elementIndex variables may only be used inside foreach');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
