import { utf8Length } from '../../json/index.js';
import { activeGuard } from '../engine/bounds.js';
import { actualSize } from '../engine/runtime.js';
import { REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR } from '../engine/stdlib.js';
import { isList, isMap, listItems, mapEntries } from './values.js';

/** cel-go cost constants (`common/cost.go`), the ones the engine charges. */
export { REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR };
export { LIST_CREATE_COST as LIST_CREATE_BASE_COST, STRUCT_CREATE_COST as STRUCT_CREATE_BASE_COST } from '../engine/eval-state.js';

/** Kubernetes' `actualSize`: the value's CEL size, 1 for values without one. */
export { actualSize };

/** ceil(size(v) * 0.1): one traversal of a string (or list). */
export function traversal(v: unknown, factor = 1): number {
  return Math.ceil(actualSize(v) * factor * STRING_TRAVERSAL_COST_FACTOR);
}

/** cel-go's regex cost: string traversal times an estimate of the regex's size (its length). */
export function regexCost(str: unknown, regexSize: number): number {
  const strCost = Math.ceil((1 + actualSize(str)) * STRING_TRAVERSAL_COST_FACTOR);
  const reCost = Math.ceil(regexSize * REGEX_STRING_LENGTH_COST_FACTOR);
  return strCost * reCost;
}

/**
 * Kubernetes' `traversalCost` (lists library): the cost of walking a value as a data tree. Strings
 * count their UTF-8 bytes, as Go's len() does, truncated rather than rounded up.
 */
export function traversalCost(v: unknown): number {
  // A value built by CEL may share subtrees ([v].map(x, [x, x]) nested): walked as a tree it can be
  // exponentially larger than it looks, so the walk lets the review's deadline in.
  activeGuard()?.tick();
  if (typeof v === 'string') return Math.floor(utf8Length(v) * STRING_TRAVERSAL_COST_FACTOR);
  if (v instanceof Uint8Array) return Math.floor(v.length * STRING_TRAVERSAL_COST_FACTOR);
  if (isList(v)) {
    let cost = 0;
    for (const item of listItems(v)) cost += traversalCost(item);
    return cost;
  }
  if (isMap(v)) {
    let cost = 0;
    for (const [k, val] of mapEntries(v)) cost += traversalCost(k) + traversalCost(val);
    return cost;
  }
  return 1;
}
