/**
 * A test's `results` against the policies' responses, row by row as `kyverno test` checks them
 * (commands/test/output.go): the resources a result names (`name` or `namespace/name`; every resource
 * when none of them exists), per resource the named policy's response and its rule (or `autogen-` /
 * `autogen-cronjob-` rule); for each rule the patched resource is compared with the one of the same
 * apiVersion/kind/namespace/name in `patchedResources` after tidying and fixing up Kyverno's labels
 * (a resource missing there is not checked), then the rule's result (pass = applied, skip = did not
 * apply, error = failed) with the expected one. A policy with no rule matching the resource is a pass ("Excluded").
 */
import { posix } from 'node:path';
import { getOwn, isJsonObject, type JsonValue } from '../../json/index.js';
import type { RuleStatus } from '../../kyverno/index.js';
import { formatDifferences } from '../diff.js';
import type { PolicyResponse } from './evaluate.js';
import type { TestResult } from './format.js';
import type { LoadedResource } from './resources.js';
import { compareTidy, withKyvernoLabels } from './tidy.js';

export interface Row {
  id: number;
  policy: string;
  rule: string;
  resource: string;
  result: 'Pass' | 'Fail' | 'Skip';
  reason: string;
  message: string;
  isFailure: boolean;
}

export interface Counts {
  pass: number;
  skip: number;
  fail: number;
}

export interface CheckContext {
  /** Responses per resource key, for the default run and for each operation results name. */
  responses(operation: string | undefined): Map<string, PolicyResponse[]>;
  /** The documents of an expected-resource file (relative to the test). */
  expected(path: string): Promise<LoadedResource[]>;
  /** Policies Amender refused or a cluster would not run, by name, with why. */
  invalidPolicies: ReadonlyMap<string, { reason: string; message: string }>;
  /** Rules of the policies that are not mutate rules (Amender does not run them), `policy/rule`. */
  otherRules: ReadonlySet<string>;
  counts: Counts;
  nextId: () => number;
}

const RESULT_OF: Record<RuleStatus, string> = { applied: 'pass', skipped: 'skip', error: 'error' };

function meta(v: JsonValue, key: string): string {
  const m = isJsonObject(v) ? getOwn(v, 'metadata') : undefined;
  const s = isJsonObject(m) ? getOwn(m, key) : undefined;
  return typeof s === 'string' ? s : '';
}

function field(v: JsonValue, key: string): string {
  const s = isJsonObject(v) ? getOwn(v, key) : undefined;
  return typeof s === 'string' ? s : '';
}

/**
 * The keys of the resources a result names, in the order the test loaded them: by `name` or
 * `namespace/name`, and by resourceSpecs (apiVersion, namespace and name; read only when the result has
 * `resources`, as Kyverno reads them). Every resource when none is named.
 */
function resourcesOf(result: TestResult, keys: readonly string[]): string[] {
  const out: string[] = [];
  for (const r of result.resources) {
    const nsAndName = r.split('/');
    for (const key of keys) {
      const parts = key.split(',');
      const name = parts[parts.length - 1];
      const ns = parts[parts.length - 2];
      if (nsAndName.length === 1 && r === name) out.push(key);
      if (nsAndName.length === 2 && nsAndName[0] === ns && nsAndName[1] === name) out.push(key);
    }
  }
  if (result.resourcesGiven) {
    for (const spec of result.resourceSpecs) {
      const apiVersion = spec.group === '' ? spec.version : `${spec.group}/${spec.version}`;
      for (const key of keys) {
        const parts = key.split(',');
        if (parts[0] === apiVersion && parts[parts.length - 2] === spec.namespace && parts[parts.length - 1] === spec.name) out.push(key);
      }
    }
  }
  return out.length > 0 ? out : [...keys];
}

interface Check {
  ok: boolean;
  message: string;
  reason: string;
  /** The expected resource file has no such resource: the row is left out, as Kyverno leaves it out. */
  missing?: boolean;
}

async function checkRule(result: TestResult, response: PolicyResponse, rule: { status: RuleStatus; message: string }, ctx: CheckContext): Promise<Check> {
  if (result.patchedResources !== undefined) {
    const actual = response.patched;
    let candidates: LoadedResource[];
    try {
      candidates = await ctx.expected(result.patchedResources);
    } catch (err) {
      return { ok: false, message: `failed to load PatchedResources resource (${(err as Error).message})`, reason: 'Resource error' };
    }
    const want = [field(actual, 'apiVersion'), field(actual, 'kind'), meta(actual, 'namespace'), meta(actual, 'name')].join(',');
    const expected = candidates.find((c) => c.key === want);
    if (!expected) {
      return { ok: false, message: `resource with name ${meta(actual, 'name')} not found in manifest ${result.patchedResources}`, reason: 'Resource error', missing: true };
    }
    const diffs = compareTidy(withKyvernoLabels(expected.value), withKyvernoLabels(actual));
    if (diffs.length > 0) {
      return {
        ok: false,
        message: `Patched resource didn't match the patched resource in the test result (after tidying):\n${formatDifferences(diffs)}\nrule result: ${RESULT_OF[rule.status]}${rule.message ? ` (${rule.message})` : ''}`,
        reason: 'Resource diff',
      };
    }
  }
  const got = RESULT_OF[rule.status];
  if (got !== result.result) return { ok: false, message: rule.message, reason: `Want ${result.result}, got ${got}` };
  return { ok: true, message: rule.message, reason: 'Ok' };
}

function row(ctx: CheckContext, result: TestResult, rule: string, resourceKey: string, check: Pick<Check, 'ok' | 'message' | 'reason'>, outcome?: Row['result']): Row {
  const isFailure = !check.ok;
  const shown: Row['result'] = outcome ?? (check.ok ? 'Pass' : 'Fail');
  if (isFailure) ctx.counts.fail++;
  else if (result.result === 'skip' || check.reason === 'Excluded') ctx.counts.skip++;
  else ctx.counts.pass++;
  return { id: ctx.nextId(), policy: result.policy, rule, resource: resourceKey.replace(/,/g, '/'), result: shown, reason: check.reason, message: check.message, isFailure };
}

const CEL_POLICY_KINDS: ReadonlySet<string> = new Set(['MutatingAdmissionPolicy', 'MutatingPolicy', 'NamespacedMutatingPolicy']);

function rulesToCheck(result: TestResult, response: PolicyResponse) {
  // A MutatingAdmissionPolicy or Kyverno MutatingPolicy has no rules: its one result stands for the policy.
  if (result.rule === '' || CEL_POLICY_KINDS.has(response.policy.kind)) return response.rules;
  const names = [result.rule, `autogen-${result.rule}`, `autogen-cronjob-${result.rule}`];
  return response.rules.filter((r) => names.includes(r.rule));
}

export async function checkResult(result: TestResult, ctx: CheckContext): Promise<Row[]> {
  const trigger = ctx.responses(result.operation);
  const policyName = result.policy.split('/').pop()!;
  const rows: Row[] = [];
  for (const key of resourcesOf(result, [...trigger.keys()])) {
    const resourceRows: Row[] = [];
    let skipped = false;
    for (const response of trigger.get(key) ?? []) {
      if (response.policy.name !== policyName) continue;
      if (result.rule !== '' && !CEL_POLICY_KINDS.has(response.policy.kind) && ctx.otherRules.has(`${policyName}/${result.rule}`)) {
        resourceRows.push(row(ctx, result, result.rule, key, { ok: false, reason: 'Not run', message: `rule ${result.rule} is not a mutate rule: Amender runs mutate rules only` }));
        continue;
      }
      for (const rule of rulesToCheck(result, response)) {
        const check = await checkRule(result, response, rule, ctx);
        if (check.missing && !result.failOnMissingResources) {
          skipped = true;
          continue;
        }
        resourceRows.push(row(ctx, result, rule.rule, key, check));
      }
      if (resourceRows.length === 0 && !skipped) {
        resourceRows.push(row(ctx, result, result.rule, key, { ok: true, reason: 'Excluded', message: 'Excluded' }));
      }
    }
    if (resourceRows.length === 0 && !skipped) {
      const invalid = ctx.invalidPolicies.get(policyName);
      // Kyverno counts a policy it cannot load as skipped; Amender would not run it at admission, so it fails.
      resourceRows.push(
        row(ctx, result, result.rule, key, invalid !== undefined ? { ok: false, ...invalid } : { ok: false, reason: 'Not found', message: `no policy ${result.policy} among the test's policies` }),
      );
    }
    rows.push(...resourceRows);
  }
  return rows;
}

/** `dir/path` unless path is absolute. */
export function relativeTo(dir: string, path: string): string {
  return posix.isAbsolute(path) ? path : posix.normalize(posix.join(dir, path));
}

