/**
 * `patchStrategicMerge` (pkg/engine/mutate/patch/strategicMergePatch.go): the substituted overlay's
 * anchors are resolved against the resource (./smp-preprocess.ts), then the plain overlay is merged
 * with kustomize's strategic-merge rules by the schema module. A condition or global condition that
 * does not hold means "nothing to do" (the rule is skipped), not an error: the overlay is merged as `{}`,
 * which leaves the resource as it is unless kyaml's walk normalizes it.
 *
 * The review's guard is checked between the steps (and ticked inside the anchor resolution).
 */
import { isReviewAborted, UNBOUNDED_GUARD, type ReviewGuard } from '../../guard/index.js';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { strategicMerge, type StrategicMergeCache, type StrategicMergeChain } from '../../schema/index.js';
import { KyvernoRuleError, messageOf } from '../errors.js';
import type { PatchHeights } from './patch-heights.js';
import type { PatchOutcome } from './patchers.js';
import { ConditionFailure, GlobalConditionFailure, mayHaveAnchors, preprocessOverlay, type ChainLists } from './smp-preprocess.js';

/** What the anchors of a chain's overlay read the lists it keeps aside through. */
function chainLists(chain: StrategicMergeChain): ChainLists {
  return { beforeReading: () => chain.flush(), itemByKey: (array, key, text) => chain.itemByKey(array, key, text) };
}

/**
 * `cache`: one per request, so the merges of its rules skip what earlier ones already walked.
 * `chain`: the merges of one foreach entry's elements, each into the previous one's result.
 * `heights`: the rule's, told the overlay merged.
 */
export function applyStrategicMerge(
  resource: JsonValue,
  overlay: JsonValue,
  cache?: StrategicMergeCache,
  chain?: StrategicMergeChain,
  guard: ReviewGuard = UNBOUNDED_GUARD,
  heights?: PatchHeights,
): PatchOutcome {
  const anchors = mayHaveAnchors(overlay);
  let plain: JsonValue;
  let skipReason: string | undefined;
  // The deadline was read just before (the rule's or the foreach element's step); it is read again
  // after the anchors and after the merge.
  try {
    // Anchors are resolved against the resource, which must hold the lists the chain kept aside once
    // they read into one (maps they reach through maps only are up to date).
    plain = preprocessOverlay(overlay, resource, guard, anchors, chain && anchors ? chainLists(chain) : undefined);
  } catch (error) {
    if (error instanceof ConditionFailure || error instanceof GlobalConditionFailure) {
      // Kyverno still merges the patch, emptied to `{}` (strategicMergePatch): kyaml's walk of the
      // resource merges duplicate list keys, and a resource that changes so is "patched". Nearly always
      // the resource comes back as it is (the request's merge cache knows the subtrees already walked).
      plain = EMPTY_PATCH;
      skipReason = error.message;
    } else if (isReviewAborted(error)) throw error;
    // Kyverno: `failed to preProcess rule: <error>` (strategicMergePatch).
    else throw new KyvernoRuleError(`failed to preProcess rule: ${messageOf(error)}`);
  }
  guard.check();
  const merged = strategicMerge(resource, plain, { cache, chain, guard });
  guard.check();
  // Kyverno gives kyaml's error as it is (under "failed to patch resource").
  if (!merged.ok) throw new KyvernoRuleError(merged.error.message);
  heights?.merged(plain);
  if (skipReason === undefined) return { resource: merged.value };
  // The merge of `{}` gives back a new top-level map: the resource itself when every member is its own.
  return { resource: sameMembers(merged.value, resource) ? resource : merged.value, skipReason };
}

function sameMembers(merged: JsonObject, resource: JsonValue): boolean {
  if (!isJsonObject(resource)) return false;
  const keys = Object.keys(merged);
  if (keys.length !== Object.keys(resource).length) return false;
  for (const key of keys) if (!hasOwn(resource, key) || resource[key] !== merged[key]) return false;
  return true;
}

const EMPTY_PATCH: JsonValue = Object.freeze({}) as JsonValue;
