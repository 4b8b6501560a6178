import { bindMacro } from '../engine/macros.js';
import type { CelLibrary } from '../library.js';

/**
 * cel-go's bindings extension (`ext.Bindings`): the `cel.bind(v, init, expr)` macro. kube-apiserver's
 * environment does not declare it (there `cel.bind(...)` is a compile error: undeclared reference to
 * 'cel'); Kyverno's base environment and the general one (conformance, tools) do.
 */
export const bindingsLibrary: CelLibrary = {
  name: 'cel.lib.ext.cel.bindings',
  register: (r) => r.registerMacro('bind', 3, true, bindMacro),
};
