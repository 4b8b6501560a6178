import type { Environment } from '@marcbachmann/cel-js';

/** Registers a synchronous function (cel-js then skips its Promise handling for the call). */
export function fn(env: Environment, signature: string, handler: (...args: any[]) => unknown): void {
  env.registerFunction(signature, handler, { async: false });
}

/**
 * Registers a typed overload by name (used for names a signature string cannot spell, such as the
 * `@`-prefixed aliases below). `receiver` makes it a method.
 */
export function overload(
  env: Environment,
  name: string,
  receiver: string | undefined,
  params: string[],
  returnType: string,
  handler: (...args: any[]) => unknown,
): void {
  env.registerFunction({
    name,
    ...(receiver ? { receiverType: receiver } : {}),
    returnType,
    params: params.map((type, i) => ({ name: `arg${i}`, type })),
    handler,
    async: false,
  });
}

/**
 * Registers a namespace such as `strings` in `strings.quote(s)`: cel-js parses `a.b(c)` as a method
 * call on the identifier `a`, so the namespace is a constant of its own type whose methods are the
 * namespaced functions. The type has no fields, so `strings.x` is a compile error.
 */
export function namespace(env: Environment, constant: string, typeName: string): void {
  NAMESPACE_TYPES.set(typeName, constant);
  const Namespace = class {};
  Object.defineProperty(Namespace, 'name', { value: typeName });
  env.registerType(typeName, { ctor: Namespace, fields: {} });
  const instance = new Namespace();
  namespaces.add(instance);
  env.registerConstant(constant, typeName, instance);
}

const namespaces = new WeakSet<object>();

/**
 * Namespace type name -> identifier (`cel.lib.ext.strings.Namespace` -> `strings`), for an engine
 * that declares namespaced functions by their cel-go names (`strings.quote`) rather than as methods
 * of a namespace constant.
 */
export const NAMESPACE_TYPES = new Map<string, string>();

/**
 * The call's arguments as cel-go sees them: a namespaced function (`strings.quote(s)`) receives
 * its namespace constant as first handler argument, which is not an argument of the CEL call.
 */
export function callArgs(args: readonly unknown[]): readonly unknown[] {
  const first = args[0];
  return typeof first === 'object' && first !== null && namespaces.has(first) ? args.slice(1) : args;
}

/** The parts of a cel-js AST node the override macro uses (public members not in its typings). */
interface MacroNode {
  readonly op: string;
  readonly meta: { check: unknown; evaluate: unknown };
  clone(op: { name: string; check: unknown; evaluate: unknown }, args: unknown): unknown;
}

const OVERRIDE_RECEIVER = 'amender.lib.OverrideMarker';
const overridden = new WeakMap<Environment, Set<string>>();

/** The alias under which an overriding implementation of `method` is registered. */
export function overrideAlias(method: string): string {
  return `@${method}`;
}

/**
 * Replaces cel-js's built-in `<receiver>.<method>(...)` with `arity` arguments by this library's
 * implementation. cel-js refuses a second overload that overlaps a built-in one, but it expands
 * macros by name and argument count whatever the receiver: a macro declared on a private receiver
 * type therefore catches every `x.method(...)` call of that arity at parse time and rewrites it to
 * `x.@method(...)`, an ordinary call the type checker resolves against the `@method` overloads
 * (register them with {@link overload} and {@link overrideAlias}). The rewritten node is a normal
 * function call, so cost tracking and error positions work as for any other call.
 * Zero-argument methods cannot be caught this way (a macro needs an argument).
 */
export function overrideMethod(env: Environment, method: string, arity: number): void {
  if (arity < 1) throw new Error(`cannot override zero-argument method ${method}()`);
  let done = overridden.get(env);
  if (!done) {
    const Marker = class {};
    env.registerType(OVERRIDE_RECEIVER, { ctor: Marker, fields: {} });
    overridden.set(env, (done = new Set()));
  }
  // Several libraries may share a method name (strings and lists both have indexOf).
  const key = `${method}/${arity}`;
  if (done.has(key)) return;
  done.add(key);
  const alias = overrideAlias(method);
  const params = Array.from({ length: arity }, () => 'ast').join(', ');
  env.registerFunction(`${OVERRIDE_RECEIVER}.${method}(${params}): dyn`, ({ ast, args, receiver }: any) => {
    const node = ast as MacroNode;
    const rcall = { name: node.op, check: node.meta.check, evaluate: node.meta.evaluate };
    return { callAst: node.clone(rcall, [alias, receiver, args]) };
  });
}
