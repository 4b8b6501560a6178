/**
 * One matched rule (pkg/engine/mutation.go, mutate/mutation.go): load its context entries, check its
 * preconditions, then either substitute variables over the whole rule and apply its patch, or run its
 * foreach. The outcome is `applied` when the resource changed, `skipped` otherwise, `error` on any
 * failure — in which case the rule's output is dropped.
 *
 * The review's guard bounds every step; when it trips, the rule is an `error` with the guard's message
 * ("deadline exceeded…", "… over the limit of N per value") and the reason in `aborted`.
 */
import { boundMessage, isReviewAborted, type AbortReason } from '../guard/index.js';
import { isJsonObject, jsonEqual, ownMember, type JsonValue, type SizeMemo } from '../json/index.js';
import { conditionsFailure } from './match/conditions.js';
import { loadContextEntries } from './context/context-entries.js';
import { failedStep, KyvernoRuleError, messageOf, STEP } from './errors.js';
import { runForeach, type ForeachScope } from './foreach/foreach.js';
import { measureValue } from './measure.js';
import { checkJsonDepth } from '../jsonpatch/index.js';
import { applyPatches, applyTemplatedPatch } from './patchers/patchers.js';
import type { CompiledRule } from './types.js';
import { substituteMember } from './context/variables.js';

export type RuleStatus = 'applied' | 'skipped' | 'error';

export interface RuleResult {
  readonly status: RuleStatus;
  readonly message: string;
  /** The resource after the rule (the input itself unless applied). */
  readonly resource: JsonValue;
  /** Set when the review's guard stopped the rule. */
  readonly aborted?: AbortReason;
}

/**
 * Runs a rule that matched. Never throws: failures come back as `error` results. A rule without context
 * entries and without foreach has nothing to wait for: its result comes back directly, not as a promise
 * (the review's other rules then cost no turn of the microtask queue).
 */
export function runRule(rule: CompiledRule, resource: JsonValue, scope: ForeachScope): RuleResult | Promise<RuleResult> {
  scope.heights?.start();
  if (rule.context.length > 0 || rule.mutation.type === 'foreach') return runRuleAsync(rule, resource, scope);
  try {
    scope.ctx.guard.check();
    if (rule.mutation.type === 'targets') return targetsSkipped(resource);
    const unmet = preconditionsFailure(rule, scope);
    if (unmet !== undefined) return preconditionsNotMet(unmet, resource);
    return patchOutcome(rule, resource, scope);
  } catch (error) {
    return failed(error, resource);
  }
}

/** The rule's preconditions (Kyverno names the step in their errors). */
function preconditionsFailure(rule: CompiledRule, scope: ForeachScope): string | undefined {
  try {
    return conditionsFailure(rule.preconditions, scope);
  } catch (error) {
    throw failedStep(STEP.preconditions, error);
  }
}

async function runRuleAsync(rule: CompiledRule, resource: JsonValue, scope: ForeachScope): Promise<RuleResult> {
  try {
    scope.ctx.guard.check();
    if (rule.mutation.type === 'targets') return targetsSkipped(resource);
    if (rule.context.length > 0) {
      try {
        await loadContextEntries(rule.context, scope);
      } catch (error) {
        throw failedStep(STEP.context, error);
      }
    }
    const unmet = preconditionsFailure(rule, scope);
    if (unmet !== undefined) return preconditionsNotMet(unmet, resource);
    if (rule.mutation.type === 'foreach') {
      const changes = { entryChanged: false };
      const result = outcome(await runForeach(rule.mutation.entries, resource, scope, 0, undefined, changes), resource, FOREACH_UNCHANGED, scope);
      // Entries that undid each other: Kyverno's rule still passes (it counts the entries that changed).
      return result.status === 'skipped' && changes.entryChanged ? applied(result.resource) : result;
    }
    return patchOutcome(rule, resource, scope);
  } catch (error) {
    return failed(error, resource);
  }
}

/** Kyverno's message for a foreach rule that changed nothing (mutateForEach counts the entries that did). */
const FOREACH_UNCHANGED = '0 elements processed';

/** Kyverno's skip message: "preconditions not met", then the failed conditions' messages. */
function preconditionsNotMet(messages: string, resource: JsonValue): RuleResult {
  return { status: 'skipped', message: messages === '' ? 'preconditions not met' : `preconditions not met; ${messages}`, resource };
}

function targetsSkipped(resource: JsonValue): RuleResult {
  return { status: 'skipped', message: 'mutate-existing rules (targets) run in the background, not at admission', resource };
}

/** A rule's patchesJson6902 or patchStrategicMerge, applied (the rule matched and its preconditions hold). */
function patchOutcome(rule: CompiledRule, resource: JsonValue, scope: ForeachScope): RuleResult {
  if (rule.json6902) {
    // The rest of the rule is still substituted: a bad variable anywhere fails the rule (nothing of it is read).
    try {
      substituteMember(rule.json6902.rest, undefined, scope);
    } catch (error) {
      throw failedStep(STEP.substitution, error);
    }
    return outcome(applyTemplatedPatch(resource, rule.json6902.template, rule.json6902.text, ['mutate', 'patchesJson6902'], scope, undefined, scope.heights), resource, undefined, scope);
  }
  // The whole rule is substituted (a bad variable anywhere fails it); only its `mutate` is read.
  let mutate: JsonValue | undefined;
  try {
    mutate = substituteMember(rule.substitutable, 'mutate', scope);
  } catch (error) {
    throw failedStep(STEP.substitution, error);
  }
  const { resource: patched, skipReason } = applyPatches(resource, mutate ?? null, scope.merges, undefined, scope.ctx.guard, undefined, scope.heights);
  return outcome(patched, resource, skipReason, scope);
}

function outcome(patched: JsonValue, resource: JsonValue, skipReason: string | undefined, scope: ForeachScope): RuleResult {
  if (patched !== resource) {
    // What the rule built goes into the reply: it must fit the bound as a whole too (measured before
    // comparing: a value sharing subtrees would take exponential time to compare).
    const size = measureValue(patched, scope.ctx.guard, 'the mutated resource', scope.ctx.sizes);
    // Nor may it nest deeper than a review: the next rule's walkers would recurse that deep. Not walked
    // when no patch of the rule can have reached that depth (./patchers/patch-heights.ts).
    if (!scope.heights?.fit()) checkJsonDepth(patched, 'the mutated resource', resource);
    if (sizeDiffers(resource, size, scope.ctx.sizes)) return applied(patched);
  }
  if (patched === resource || jsonEqual(patched, resource)) {
    return { status: 'skipped', message: skipReason ?? 'no patches applied', resource };
  }
  return applied(patched);
}

/**
 * Is `size` other than the size the memo knows for `resource` (the previous rule's output, measured)?
 * Equal values have equal size estimates, so then they differ, and no comparison is needed.
 */
function sizeDiffers(resource: JsonValue, size: number, sizes: SizeMemo | undefined): boolean {
  const before = typeof resource === 'object' && resource !== null ? sizes?.get(resource) : undefined;
  return before !== undefined && before !== size;
}

function applied(resource: JsonValue): RuleResult {
  return { status: 'applied', message: describe(resource), resource };
}

/** V8's RangeError for a recursion past the stack: data nested deeper than a walker can go, within one rule. */
function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

function failed(error: unknown, resource: JsonValue): RuleResult {
  if (isReviewAborted(error)) return { status: 'error', message: error.message, resource, aborted: error.reason };
  const message = error instanceof KyvernoRuleError
    ? error.message
    : isStackOverflow(error)
      ? `the rule built or read a value nested too deeply to process (${messageOf(error)})`
      : `unexpected failure: ${messageOf(error)}`;
  return { status: 'error', message: boundMessage(message), resource };
}

/** The applied message. Members read through ownMember: they are nearly always there, and then a plain read is all. */
function describe(resource: JsonValue): string {
  const object = isJsonObject(resource) ? resource : undefined;
  const meta = object ? ownMember(object, 'metadata') : undefined;
  const kind = object ? ownMember(object, 'kind') : undefined;
  const name = isJsonObject(meta) ? ownMember(meta, 'name') : undefined;
  const ns = isJsonObject(meta) ? ownMember(meta, 'namespace') : undefined;
  const what = `${typeof kind === 'string' ? kind : 'resource'}/${typeof name === 'string' ? name : ''}`;
  return typeof ns === 'string' && ns !== '' ? `mutated ${what} in namespace ${ns}` : `mutated ${what}`;
}
