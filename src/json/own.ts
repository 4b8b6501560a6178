import type { JsonObject, JsonValue } from './types.js';

/**
 * Keys come from untrusted documents, so `__proto__` and `constructor` must be ordinary data.
 * `obj[key] = v` with key `__proto__` would call the prototype setter instead of storing data, so every
 * write of a data-derived key goes through `setOwn`.
 */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/**
 * Whether `v`, read as `obj[key]` from a JSON object, is an own member of it. A JSON value is never
 * undefined, and what a JSON object inherits is a function or, for `__proto__`, Object.prototype: only
 * such reads take the own-property test, which costs a full lookup on the objects of many shapes that the
 * schema walks meet.
 */
export function isOwnRead(obj: object, key: string, v: unknown): boolean {
  if (v === undefined) return false;
  return (typeof v !== 'function' && key !== '__proto__') || hasOwn(obj, key);
}

/** The own property `key` of `obj`, or undefined (never an inherited one such as `toString`). */
export function getOwn(obj: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * getOwn for a JSON object, by a plain property read for nearly every key: a JSON value is never
 * undefined or a function, so only those results (and `__proto__`, whose inherited accessor returns an
 * object) can be inherited and need the dearer own-property check.
 */
export function ownMember(obj: JsonObject, key: string): JsonValue | undefined {
  const v = obj[key];
  if (v === undefined || typeof v === 'function' || key === '__proto__') return hasOwn(obj, key) ? obj[key] : undefined;
  return v;
}
