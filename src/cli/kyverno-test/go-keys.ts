/**
 * Keys of the Kyverno CLI's files (tests, values, user info) as Go reads them: encoding/json (under
 * sigs.k8s.io/yaml, strict or not) matches a field name case-insensitively when no key matches it
 * exactly, so `globalvalues` is `globalValues` there (Kyverno's own library has an `isMUtatingPolicy`).
 */
import type { JsonObject } from '../../json/index.js';

/** The object with keys that differ from a known key only in case renamed to it (an exact key wins). */
export function foldKeyCase(obj: JsonObject, known: readonly string[]): JsonObject {
  let out: JsonObject | undefined;
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const canonical = known.find((k) => k.toLowerCase() === key.toLowerCase());
    if (canonical === undefined || Object.prototype.hasOwnProperty.call(obj, canonical)) continue;
    out ??= { ...obj };
    out[canonical] = out[key];
    delete out[key];
  }
  return out ?? obj;
}
