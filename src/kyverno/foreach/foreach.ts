/**
 * `mutate.foreach` (pkg/engine/handlers/mutation/common.go): entries run in order, each on the output of
 * the previous one, and `request.object` is refreshed after each entry (not between the elements of one
 * entry: every element starts from the context as it was before the loop). For each element: reset the
 * context, set `element`/`elementIndex` (and `element<N>`/`elementIndex<N>` for nesting level N), load
 * the entry's context, check its preconditions (false skips the element), then substitute and apply the
 * entry's patch — or run its nested foreach — on the running resource.
 *
 * Order: ascending, except for strategic merge where the default is descending (the merge moves each
 * patched list item to the front, so descending keeps the original order); `elementIndex` is always
 * the position in the list as evaluated. Null elements are skipped; a list that evaluates to null runs
 * nothing; anything else that is not a list is an error.
 *
 * The review's deadline is checked before every element; the list itself was measured when queried.
 *
 * The strategic merges of a whole foreach tree (nested levels included) share one StrategicMergeChain,
 * owned by the outermost entry that merges: each merge only feeds the next one, so the chain is settled
 * just before something else reads the running resource (a JSON patch, a refresh of `request.object`
 * between entries) and when the owner's loop ends. A chain per inner loop would index the whole merged
 * list again for every outer element: quadratic in the outer list.
 */
import { isReviewAborted } from '../../guard/index.js';
import { jsonEqual, type JsonValue } from '../../json/index.js';
import { PatchChain } from '../../jsonpatch/index.js';
import { StrategicMergeChain, type StrategicMergeCache } from '../../schema/index.js';
import { conditionsHold } from '../match/conditions.js';
import { loadContextEntries, type EntryScope } from '../context/context-entries.js';
import { failedStep, KyvernoRuleError, messageOf, STEP } from '../errors.js';
import { applyPatches, applyTemplatedPatch } from '../patchers/patchers.js';
import type { PatchHeights } from '../patchers/patch-heights.js';
import type { ForeachEntry } from '../types.js';
import { substituteAll } from '../context/variables.js';

export interface ForeachScope extends EntryScope {
  /** Makes `resource` the context's `request.object` (and refreshes what derives from it). */
  readonly refreshObject: (resource: JsonValue) => void;
  /** Shared by the request's strategic merges (each merges into what the previous steps produced). */
  readonly merges?: StrategicMergeCache;
  /** How tall the running rule's patches can have made its resource (../patchers/patch-heights.ts). */
  readonly heights?: PatchHeights;
}

/**
 * Whether an entry changed the resource it started from. Kyverno's rule passes when one did
 * (mutateForEach counts them), even if later entries undid it: the rule's net change cannot tell then.
 */
export interface ForeachChanges {
  entryChanged: boolean;
}

/**
 * `chain`: the enclosing entry's, when a nested loop runs inside a foreach tree that merges.
 * `changes`: the top level's, told when an entry changed the resource (compared only while no entry has,
 * and only with two entries or more: with one, the rule's own outcome says it).
 */
export async function runForeach(
  entries: readonly ForeachEntry[],
  resource: JsonValue,
  scope: ForeachScope,
  nesting = 0,
  chain?: StrategicMergeChain,
  changes?: ForeachChanges,
): Promise<JsonValue> {
  let current = resource;
  for (let i = 0; i < entries.length; i++) {
    const before = current;
    current = await runEntry(entries[i], current, scope, nesting, chain);
    if (changes && !changes.entryChanged && entries.length > 1 && current !== before && !jsonEqual(before, current)) changes.entryChanged = true;
    // For the next entry: after the last one the caller restores the context of before the loop anyway
    // (the rule's checkpoint, or the enclosing element's), so that refresh would never be read.
    if (current !== before && i < entries.length - 1) {
      chain?.settle();
      scope.refreshObject(current);
    }
  }
  return current;
}

/** Whether an entry, or any entry nested in it, applies a patchStrategicMerge. */
function merges(entry: ForeachEntry): boolean {
  if (entry.foreach) return entry.foreach.some(merges);
  return entry.hasStrategicMerge && !entry.patchTemplate;
}

async function runEntry(
  entry: ForeachEntry,
  resource: JsonValue,
  scope: ForeachScope,
  nesting: number,
  inherited: StrategicMergeChain | undefined,
): Promise<JsonValue> {
  const list = evaluateList(entry, scope);
  const descending = entry.order ? entry.order === 'Descending' : entry.hasStrategicMerge;
  const { ctx } = scope;
  const checkpoint = ctx.checkpoint();
  // The elements' merges feed only each other (the context keeps the object from before the loop), so
  // they edit the lists they build in place instead of copying them per element: linear, not quadratic.
  const owned = inherited === undefined && merges(entry) ? new StrategicMergeChain() : undefined;
  const chain = inherited ?? owned;
  // Likewise the JSON patches of an entry that never merges: each element's patch edits in place what
  // the previous elements' patches copied (a merge, reading any element, would see those edits).
  const patchChain = !entry.hasStrategicMerge && !entry.foreach ? new PatchChain() : undefined;
  let current = resource;
  try {
    for (let k = 0; k < list.length; k++) {
      const i = descending ? list.length - 1 - k : k;
      const element = list[i];
      if (element === null) continue;
      // Each element (at every nesting level) is a step of the review: the deadline is read here.
      ctx.guard.check();
      ctx.restore(checkpoint);
      ctx.setElement(nesting, element, i);
      try {
        // Awaited only when the element waits for something (context entries, a nested loop).
        const step = runElement(entry, current, scope, nesting, i, chain, patchChain);
        current = step instanceof Promise ? await step : step;
      } catch (error) {
        // mutateForEach wraps what failed in the entry's elements (a nested loop's failure included).
        throw failedStep(STEP.elements, error);
      }
    }
    owned?.settle();
  } finally {
    patchChain?.end();
    ctx.restore(checkpoint);
  }
  return current;
}

/**
 * One element (mutateElements' loop body): its context, its preconditions (false leaves `resource` as it
 * is), then its patch or nested loop. Failures name the step as Kyverno's do, with the element's index.
 */
function runElement(
  entry: ForeachEntry,
  resource: JsonValue,
  scope: ForeachScope,
  nesting: number,
  index: number,
  chain: StrategicMergeChain | undefined,
  patchChain: PatchChain | undefined,
): JsonValue | Promise<JsonValue> {
  if (entry.context.length === 0) return patchElement(entry, resource, scope, nesting, index, chain, patchChain);
  return loadContextEntries(entry.context, scope).then(
    () => patchElement(entry, resource, scope, nesting, index, chain, patchChain),
    (error: unknown) => {
      throw failedStep(`failed to load to mutate.foreach[${index}].context`, error);
    },
  );
}

/** An element whose context is loaded: its preconditions, then its patch or nested loop. */
function patchElement(
  entry: ForeachEntry,
  resource: JsonValue,
  scope: ForeachScope,
  nesting: number,
  index: number,
  chain: StrategicMergeChain | undefined,
  patchChain: PatchChain | undefined,
): JsonValue | Promise<JsonValue> {
  let holds: boolean;
  try {
    holds = conditionsHold(entry.preconditions, scope);
  } catch (error) {
    throw failedStep(`failed to evaluate mutate.foreach[${index}].preconditions`, error);
  }
  if (!holds) return resource;
  if (entry.foreach) return runForeach(entry.foreach, resource, scope, nesting + 1, chain);
  if (entry.patchTemplate) {
    chain?.settle(); // a JSON patch reads the resource
    const text = entry.patches.patchesJson6902 as string;
    return applyTemplatedPatch(resource, entry.patchTemplate, text, ['patchesJson6902'], scope, patchChain, scope.heights);
  }
  let patches: JsonValue;
  try {
    patches = substituteAll(entry.patches, scope);
  } catch (error) {
    throw failedStep(STEP.substitution, error);
  }
  return applyPatches(resource, patches, scope.merges, chain, scope.ctx.guard, patchChain, scope.heights).resource;
}

/**
 * The entry's list (EvaluateList). Kyverno's message names the list and gives the query's error twice
 * (mutateForEach formats it into the message and NewErrorResponse appends it again).
 */
function evaluateList(entry: ForeachEntry, scope: ForeachScope): readonly JsonValue[] {
  let value: JsonValue;
  try {
    value = scope.ctx.query(entry.list);
  } catch (error) {
    if (isReviewAborted(error)) throw error;
    const cause = messageOf(error);
    throw new KyvernoRuleError(`failed to evaluate list ${entry.list}: ${cause}: ${cause}`);
  }
  // Kyverno's EvaluateList: anything but a list is a list of itself (null too, an element foreach skips).
  if (value === null) return [];
  if (!Array.isArray(value)) return [value];
  return value;
}
