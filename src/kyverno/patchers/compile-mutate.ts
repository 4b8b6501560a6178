/**
 * A rule's `mutate` block at load: which of targets, foreach or top-level patches it runs, with a
 * warning where fields beside the chosen one are ignored or nothing would be patched.
 */
import { getOwn, type JsonObject } from '../../json/index.js';
import type { Report } from '../compile-report.js';
import { compileForeach } from '../foreach/compile-foreach.js';
import type { Mutation } from '../types.js';
import { checkOverlay } from './compile-patches.js';

export function compileMutate(mutate: JsonObject, path: string, report: Report): Mutation {
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
