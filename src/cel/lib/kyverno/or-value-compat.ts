import { CelOptional } from '../../engine/values.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';

/**
 * Kyverno's orValue compatibility (kyverno pkg/cel/compiler/env.go OrValueCompatEnvOptions, in the
 * MutatingPolicy compiler's DefaultEnvOptionsWithCompat): a macro rewrites every `x.orValue(y)` to
 * `__orValueCompat__(x, y)`, which gives an optional's value or `y` and a non-optional `x` itself (cel-go
 * v0.27's orValue; v0.28 refuses it). The function is strict like any other: an error in `x` or `y` is
 * the result (Kyverno's branch for an error argument is never reached under cel-go's strict dispatch).
 */
const COMPAT = '__orValueCompat__';

function orValueCompat(lhs: unknown, rhs: unknown): unknown {
  if (lhs instanceof CelOptional) return lhs.hasValue() ? lhs.value() : rhs;
  return lhs;
}

export const orValueCompatLibrary: CelLibrary = {
  name: 'kyverno.orValueCompat',
  register(r: LibraryRegistrar) {
    r.registerMacro('orValue', 1, true, (f, pos, target, args) => f.call(pos, COMPAT, [target!, args[0]]));
    r.registerFunction(`${COMPAT}(dyn, dyn): dyn`, orValueCompat);
  },
};
