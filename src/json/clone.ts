import { hasOwn, setOwn } from './own.js';
import type { JsonObject, JsonValue } from './types.js';

/** Deep copy of a JSON value (faster than structuredClone for plain data; `__proto__` keys stay data). */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: JsonObject = {};
  for (const key in value) if (hasOwn(value, key)) setOwn(out, key, cloneJson((value as JsonObject)[key]));
  return out as T;
}
