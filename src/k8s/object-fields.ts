/** Reading the fields of an object as stored, for the create-time checks of config-validation.ts and object-meta-validation.ts. */
import { utf8Length } from '../json/index.js';

export type Obj = Readonly<Record<string, unknown>>;

/** The object-valued field `name` of `obj` (own property only), or an empty one. */
export function mapField(obj: Obj, name: string): Obj {
  const v = Object.hasOwn(obj, name) ? obj[name] : undefined;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {};
}

/**
 * The UTF-8 bytes of `values` together, exact when they may pass `bound`: a UTF-16 unit is at most 3
 * bytes, so below bound / 3 units nothing is counted byte by byte (a set of 40,000 ConfigMaps is checked
 * at build).
 */
export function utf8Total(values: readonly string[], bound: number): number {
  let units = 0;
  for (const v of values) units += v.length;
  if (units * 3 <= bound) return units;
  let bytes = 0;
  for (const v of values) bytes += utf8Length(v);
  return bytes;
}
