/**
 * The contract between the CEL engine and its function libraries (src/cel/lib: quantity, ip, cidr,
 * semver, url, format, regex, lists, sets, strings, authz, jsonpatch).
 *
 * A library declares its types and functions on a {@link LibraryRegistrar} and tells the cost
 * tracker what each call costs in cel-go/Kubernetes units (`k8s.io/apiserver/pkg/cel/library/cost.go`
 * and the cel-go extensions' trackers). Values follow src/cel/engine/values.ts (int bigint, uint
 * CelUint, optional CelOptional, ...); a library's own values are instances of the classes it
 * registers and implement {@link CelLibraryValue}.
 */
export interface CelLibrary {
  /** cel-go/Kubernetes library name (`cel.lib.ext.strings`, `kubernetes.quantity`, ...). */
  readonly name: string;
  register(registrar: LibraryRegistrar): void;
  /**
   * Runtime cost of one call of `fn` (the function name as declared: `indexOf`, `sets.contains`),
   * given its arguments (receiver first) and result (null when the call failed), or undefined for
   * the call's default cost.
   */
  callCost?(fn: string, args: readonly unknown[], result: unknown): number | undefined;
  /**
   * The cost `callCost` gives a call of `fn` whatever its result (or failure), when its arguments
   * alone decide it; undefined otherwise. A call whose cost would take the evaluation past its cost
   * limit is then not made: that cost is charged and the evaluation stops at the limit, as it would
   * after the call (cel-go charges a call after it returns), without the work (sets.contains of two
   * lists of 100,000 strings compares 10^10 pairs before it is charged).
   */
  callCostFromArgs?(fn: string, args: readonly unknown[]): number | undefined;
}

/** How a library function may be treated beyond its signature. */
export interface FunctionOptions {
  /**
   * Its result and cost depend on its arguments only and it has no effect (no I/O, no clock, no
   * promise): a call with constant arguments is then evaluated once, when the expression is planned,
   * and each evaluation charges the cost that call had.
   */
  pure?: boolean;
}

export interface LibraryRegistrar {
  /**
   * Declares one overload. The signature is `name(argTypes): resultType` for a global function,
   * `receiverType.name(argTypes): resultType` for a method, and `ns.name(...)` (where `ns` is not a
   * type) for a namespaced function such as `sets.contains`. Types are spelled `int`, `list<T>`,
   * `map<string, list<string>>`, `optional<T>`, `google.protobuf.Duration`, a registered type name,
   * or a single capital letter for a type parameter. A declaration with the same name and parameter
   * types as an earlier one (a standard function's, or another library's) replaces it.
   *
   * The implementation receives CEL values (receiver first), returns a CEL value or a Promise of
   * one (only from an asynchronous evaluation: an authorizer), and throws {@link celError}-style
   * errors (`src/cel/lib/errors.ts`) whose message is the text users see.
   */
  registerFunction(signature: string, impl: (...args: any[]) => unknown, options?: FunctionOptions): void;
  /**
   * Declares an opaque type (`kubernetes.Quantity`, `net.IP`): its name becomes a type identifier
   * (`type(ip('::1')) == net.IP`) and instances of `valueClass` are its runtime values.
   */
  registerType(name: string, valueClass: abstract new (...args: any[]) => CelLibraryValue): void;
  /**
   * Declares a struct type with the given fields (name → type, spelled as in registerFunction), such as a
   * Go struct a library returns: selecting another field is a compile error. Its runtime values are plain
   * objects; a field they lack reads as its type's zero value, and has() is false for it, as for a Go
   * struct's zero field (cel-go ext.NativeTypes).
   */
  registerStruct(name: string, fields: Readonly<Record<string, string>>): void;
  /**
   * Declares a compile-time check of a literal argument of `fn` (a cel-go format validator, such as
   * ValidateRegexLiterals for `matches`): as cel-go, it reads the call's first argument after the
   * receiver, so the pattern of `s.matches('[')` but the input of `matches('[', re)`. `check` returns
   * the compile error text, or undefined when the literal is valid. Runs only in environments that
   * validate literals (the Kubernetes ones).
   */
  registerLiteralCheck(fn: string, check: (literal: string) => string | undefined): void;
  /**
   * Declares a check of a constant argument of `fn` made when the program is created (cel-go's
   * RegexOptimization: Kubernetes compiles a constant regex then): argument `index`, a method's receiver
   * counting as argument 0. A `check` that returns an error text fails program creation with
   * `program instantiation failed: <text>`.
   */
  registerPlanCheck(fn: string, index: number, check: (literal: string) => string | undefined): void;
  /**
   * Declares a compile-time check of every type-checked call of `fn` (a cel-go AST validator, such as
   * the strings library's check of `format` calls): `check` gets the call node, its arguments annotated
   * with their checked types and overloads, and returns the issue to report, or undefined. Runs only in
   * environments that validate literals (the Kubernetes ones).
   */
  registerCallCheck(fn: string, check: CallCheck): void;
  /**
   * Declares a macro (cel-go's cel.Macros) expanded only in environments with this library: `name` called
   * with `args` arguments (or any number), as `target.name(...)` when `receiver`. The expander builds the
   * replacement with the parser's factory, returns undefined to leave the call as it is (a receiver macro
   * whose target is not its namespace), or reports a compile error through `f.error`.
   */
  registerMacro(name: string, args: number | 'variadic', receiver: boolean, expand: MacroExpander): void;
}

import type { Expander as MacroExpander } from './engine/macros.js';
import type { CallCheck } from './engine/env.js';
export type { CallCheck };
export type { MacroExpander };
export type { MacroFactory } from './engine/macros.js';

/**
 * A value of a library type: its CEL type name and cel-go equality (used by `==`, `in`, ...). `celEquals`
 * returns undefined where the Go type's Equal returns an error (Kubernetes' types refuse a value of
 * another type with "no such overload"): `==` then fails, `!=` is true, `in` and list members skip it.
 */
export interface CelLibraryValue {
  readonly celTypeName: string;
  celEquals(other: unknown): boolean | undefined;
  /**
   * Whether `other` stands for the same thing, where celEquals cannot say: an awaited asynchronous
   * call is matched by its arguments when the expression is evaluated again (src/cel/engine/eval-state.ts).
   */
  celSameArgument?(other: unknown): boolean;
}
