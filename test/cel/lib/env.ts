/**
 * The libraries of src/cel/lib through the package's general environment (`CelEnvironment`, every
 * library registered, Kubernetes' literal validation): evaluate an expression, or get its error.
 */
import { CelEnvironment } from '../../../src/cel/index.js';

const cache = new Map<string, CelEnvironment>();

export function libraryEnv(variables: readonly string[] = [], homogeneous = true): CelEnvironment {
  const key = `${homogeneous}:${variables.join(',')}`;
  let env = cache.get(key);
  if (!env) {
    env = new CelEnvironment({
      variables: Object.fromEntries(variables.map((v) => [v, 'dyn'])),
      homogeneousAggregateLiterals: homogeneous,
      validateLiterals: true,
    });
    if (env.libraryErrors.length) throw new Error(env.libraryErrors.join('; '));
    cache.set(key, env);
  }
  return env;
}

class CelTestError extends Error {}

function run(expr: string, bindings: Record<string, unknown>, homogeneous: boolean): unknown {
  const compiled = libraryEnv(Object.keys(bindings).sort(), homogeneous).compile(expr, { check: true });
  if (!compiled.ok) throw new CelTestError(bareCompileMessage(compiled.message));
  const r = compiled.program.evaluate(bindings);
  if (!r.ok) throw new CelTestError(r.message);
  return r.value;
}

/** The first issue of a compile error without its `ERROR: <input>:1:5: ` prefix and source snippet. */
export function bareCompileMessage(message: string): string {
  return message.split('\n')[0].replace(/^ERROR: <input>:-?\d+:\d+: /, '');
}

/** Evaluates `expr`; bindings (CEL values) become dyn variables. Throws the error message. */
export function cel(expr: string, bindings: Record<string, unknown> = {}): unknown {
  return run(expr, bindings, true);
}

/** As {@link cel}, allowing mixed-type list and map literals. */
export function celMixed(expr: string, bindings: Record<string, unknown> = {}): unknown {
  return run(expr, bindings, false);
}

/** The bare message of the error `expr` raises (compile or runtime), or undefined. */
export function celError(expr: string, bindings: Record<string, unknown> = {}): string | undefined {
  try {
    run(expr, bindings, true);
    return undefined;
  } catch (e) {
    if (e instanceof CelTestError) return e.message;
    throw e;
  }
}
