/**
 * Applying a rule's (or foreach element's) substituted patches: `patchStrategicMerge` wins over
 * `patchesJson6902` when both are present; neither is Kyverno's "empty mutate rule" error.
 */
import { getOwn, isJsonObject, type JsonValue } from '../json/index.js';
import { KyvernoRuleError } from './errors.js';
import { applyKyvernoPatch, decodeKyvernoPatch } from './json6902.js';
import { applyStrategicMerge } from './strategic.js';

export interface PatchOutcome {
  readonly resource: JsonValue;
  /** Why nothing was applied when an anchor condition did not hold. */
  readonly skipReason?: string;
}

/** `patches` holds `patchStrategicMerge` and/or `patchesJson6902` after substitution. */
export function applyPatches(resource: JsonValue, patches: JsonValue): PatchOutcome {
  const overlay = isJsonObject(patches) ? getOwn(patches, 'patchStrategicMerge') : undefined;
  if (overlay !== undefined && overlay !== null) return applyStrategicMerge(resource, overlay);
  const json = isJsonObject(patches) ? getOwn(patches, 'patchesJson6902') : undefined;
  if (json === undefined || json === null || json === '') throw new KyvernoRuleError('empty mutate rule');
  return { resource: applyKyvernoPatch(resource, decodeKyvernoPatch(json)) };
}
