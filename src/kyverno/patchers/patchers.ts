/**
 * Applying a rule's (or foreach element's) substituted patches: `patchStrategicMerge` wins over
 * `patchesJson6902` when both are present; neither is Kyverno's "empty mutate rule" error.
 */
import { UNBOUNDED_GUARD, type ReviewGuard } from '../../guard/index.js';
import { getOwn, isJsonObject, type JsonValue } from '../../json/index.js';
import type { StrategicMergeCache, StrategicMergeChain } from '../../schema/index.js';
import { EmptyMutateRule, failedStep, STEP } from '../errors.js';
import { applyKyvernoPatch, decodeKyvernoPatch, decodePatchValue, parsePatchText } from './json6902.js';
import type { Operation, PatchChain } from '../../jsonpatch/index.js';
import { instantiate, type PatchTemplate } from './patch-template.js';
import type { PatchHeights } from './patch-heights.js';
import { applyStrategicMerge } from './strategic.js';
import { substituteString, type SubstitutionScope } from '../context/variables.js';

export interface PatchOutcome {
  readonly resource: JsonValue;
  /** Why nothing was applied when an anchor condition did not hold. */
  readonly skipReason?: string;
}

/**
 * `patches` holds `patchStrategicMerge` and/or `patchesJson6902` after substitution; `merges`: the
 * request's; `chain`: the strategic merges of one foreach entry (see StrategicMergeChain); `guard`: the
 * review's; `patchChain`: the JSON patches of one foreach entry that never merges (see PatchChain);
 * `heights`: the rule's (./patch-heights.ts), told what was applied.
 */
export function applyPatches(
  resource: JsonValue,
  patches: JsonValue,
  merges?: StrategicMergeCache,
  chain?: StrategicMergeChain,
  guard: ReviewGuard = UNBOUNDED_GUARD,
  patchChain?: PatchChain,
  heights?: PatchHeights,
): PatchOutcome {
  try {
    const overlay = isJsonObject(patches) ? getOwn(patches, 'patchStrategicMerge') : undefined;
    if (overlay !== undefined && overlay !== null) return applyStrategicMerge(resource, overlay, merges, chain, guard, heights);
    chain?.settle(); // a JSON patch reads the resource
    const json = isJsonObject(patches) ? getOwn(patches, 'patchesJson6902') : undefined;
    if (json === undefined || json === null || json === '') throw new EmptyMutateRule();
    return { resource: applyKyvernoPatch(resource, decodeKyvernoPatch(json, guard), guard, patchChain, heights) };
  } catch (error) {
    throw failedStep(STEP.patch, error);
  }
}

/**
 * A patchesJson6902 text parsed at compile time: substitute its placeholders (or, when a value could
 * change how the YAML reads, substitute the text and parse it) and apply it.
 */
export function applyTemplatedPatch(
  resource: JsonValue,
  template: PatchTemplate,
  text: string,
  path: readonly string[],
  scope: SubstitutionScope,
  patchChain?: PatchChain,
  heights?: PatchHeights,
): JsonValue {
  // Substituting and patching are two steps of Kyverno's, each named in its errors.
  let parsed: JsonValue | undefined;
  let substituted: JsonValue | undefined;
  try {
    parsed = instantiate(template, path, scope);
    if (parsed === undefined) substituted = substituteString(text, path, scope);
  } catch (error) {
    throw failedStep(STEP.substitution, error);
  }
  try {
    // Undefined, not null: a template's value is null for a blank or comment-only text (no operation).
    if (parsed === undefined) parsed = parsePatchText(substituted!, scope.ctx.guard);
    return applyKyvernoPatch(resource, parsed === template.base ? staticOperations(template) : decodePatchValue(parsed), scope.ctx.guard, patchChain, heights);
  } catch (error) {
    throw failedStep(STEP.patch, error);
  }
}

/** The operations of a patch without variables (the template's own value), decoded once. */
const decodedTemplates = new WeakMap<PatchTemplate, readonly Operation[]>();

function staticOperations(template: PatchTemplate): readonly Operation[] {
  let ops = decodedTemplates.get(template);
  if (ops === undefined) {
    // A patch that does not decode throws here, at every use, as it did before.
    ops = Object.freeze(decodePatchValue(template.base));
    decodedTemplates.set(template, ops);
  }
  return ops;
}
