import { isJsonObject, type JsonValue } from '../../json/index.js';

/** A field Kyverno reads as set: present, not null, and for objects and lists not empty. */
export function isSet(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isJsonObject(value)) return Object.keys(value).length > 0;
  return true;
}

