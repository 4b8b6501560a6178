/** A cel-js Environment with every library of src/cel/lib, for tests through the package exports. */
import { Environment } from '@marcbachmann/cel-js';
import { libraries } from '../../../src/cel/lib/index.js';

const cache = new Map<string, Environment>();

export function libraryEnv(variables: readonly string[] = [], homogeneous = true): Environment {
  const key = `${homogeneous}:${variables.join(',')}`;
  let env = cache.get(key);
  if (!env) {
    env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: homogeneous });
    for (const lib of libraries) lib.register(env);
    for (const v of variables) env.registerVariable(v, 'dyn');
    cache.set(key, env);
  }
  return env;
}

/** Evaluates `expr`; bindings become dyn variables. */
export function cel(expr: string, bindings: Record<string, unknown> = {}): unknown {
  return libraryEnv(Object.keys(bindings).sort()).evaluate(expr, bindings);
}

/** As {@link cel}, allowing mixed-type list and map literals (cel-go exempts format's arguments). */
export function celMixed(expr: string, bindings: Record<string, unknown> = {}): unknown {
  return libraryEnv(Object.keys(bindings).sort(), false).evaluate(expr, bindings);
}

/** The bare message of the error `expr` raises (compile or runtime), or undefined. */
export function celError(expr: string, bindings: Record<string, unknown> = {}): string | undefined {
  try {
    cel(expr, bindings);
    return undefined;
  } catch (e) {
    const err = e as { summary?: string; message: string };
    return err.summary ?? err.message;
  }
}
