/**
 * The bundled policy set of a serverless build. `scripts/build.mjs` validates `policies/` with
 * `bundlePolicies` (src/sources/bundle.ts) and substitutes the result for `__AMENDER_POLICY_BUNDLE__`
 * (esbuild `define`), so the bundle carries documents already parsed to JSON text and no YAML is parsed
 * at cold start. Run from source (tests), nothing is substituted and there is no bundled set.
 */
import type { PolicyBundle } from '../sources/index.js';

declare const __AMENDER_POLICY_BUNDLE__: PolicyBundle | undefined;

export function embeddedPolicyBundle(): PolicyBundle | undefined {
  return typeof __AMENDER_POLICY_BUNDLE__ === 'undefined' ? undefined : __AMENDER_POLICY_BUNDLE__;
}
