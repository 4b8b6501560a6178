/**
 * The keys of a CEL map value with their CEL kinds. A CEL-built map stores integer keys as bigint, so
 * which of them were written as uints is remembered beside the map. A module of its own, below both
 * runtime.ts and struct-equality.ts, which both read keys.
 */
import { objectKeys } from './object-keys.js';
import { CelUint, type CelMapValue, type CelValue } from './values.js';

/** Maps whose keys include uints keep the original key kinds here (keys are stored as bigint). */
const uintKeys = new WeakMap<Map<CelValue, CelValue>, Set<bigint>>();

/** Records that a key of a CEL-built map was written as a uint (keys are stored as bigint). */
export function markUintKey(m: Map<CelValue, CelValue>, k: bigint): void {
  let set = uintKeys.get(m);
  if (!set) uintKeys.set(m, (set = new Set()));
  set.add(k);
}

/** Records every key of `uints` as written as a uint (a map built whole). */
export function rememberUintKeys(m: Map<CelValue, CelValue>, uints: Set<bigint>): void {
  uintKeys.set(m, uints);
}

/** The keys of `m`; a document's are shared (object-keys.ts): read them, never change them. */
export function mapKeys(m: CelMapValue): readonly CelValue[] {
  if (m instanceof Map) {
    const uints = uintKeys.get(m);
    const keys = [...m.keys()];
    if (!uints) return keys;
    return keys.map((k) => (typeof k === 'bigint' && uints.has(k) ? new CelUint(k) : k));
  }
  return objectKeys(m);
}
