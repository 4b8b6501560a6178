/**
 * The error model of the JMESPath module. Every failure that crosses the module boundary is a
 * `JmesPathError`; `kind` tells the substitution layer what happened, because Kyverno treats an
 * unresolved key (a missing map key in a bare field access) differently from every other error.
 */
import { OutcomeError } from '../../guard/index.js';

export type JmesPathErrorKind =
  /** The expression does not parse (also: an invalid JSON literal). */
  | 'syntax'
  /** A field access on an object that lacks the key, outside a tolerant context (Kyverno fork). */
  | 'unresolved'
  /** A call of a function that is not registered. */
  | 'unknown-function'
  /** A function called with the wrong number of arguments. */
  | 'invalid-arity'
  /** A function argument of the wrong JMESPath type. */
  | 'invalid-type'
  /** A function that rejected its (well-typed) input: bad regex, bad time layout, division by zero… */
  | 'function'
  /** Anything else found while evaluating (e.g. a slice step of 0). */
  | 'runtime';

export class JmesPathError extends OutcomeError {
  readonly kind: JmesPathErrorKind;
  constructor(kind: JmesPathErrorKind, message: string) {
    // An outcome (a missing key is how a substitution learns a variable does not resolve).
    super(message);
    this.kind = kind;
    this.name = 'JmesPathError';
  }
}

/**
 * A lexing or parsing error. The message starts with `SyntaxError:` as go-jmespath's does, except for a
 * JSON literal that does not decode (`prefixed` false): go-jmespath's parser returns encoding/json's
 * error as it is there.
 */
export class JmesPathSyntaxError extends JmesPathError {
  readonly expression: string;
  /** Offset (in UTF-16 code units) of the offending token. */
  readonly offset: number;
  constructor(message: string, expression: string, offset: number, prefixed = true) {
    super('syntax', prefixed ? `SyntaxError: ${message}` : message);
    this.name = 'JmesPathSyntaxError';
    this.expression = expression;
    this.offset = offset;
  }
  /** The expression with a caret under the offending position. */
  highlight(): string {
    return `${this.expression}\n${' '.repeat(Math.max(0, this.offset))}^`;
  }
}

/** Kyverno fork's NotFoundError: `Unknown key "x" in path`. */
export class UnresolvedKeyError extends JmesPathError {
  readonly key: string;
  constructor(key: string) {
    super('unresolved', `Unknown key "${key}" in path`);
    this.name = 'UnresolvedKeyError';
    this.key = key;
  }
}

export class UnknownFunctionError extends JmesPathError {
  readonly functionName: string;
  constructor(name: string) {
    super('unknown-function', `unknown function: ${name}`);
    this.name = 'UnknownFunctionError';
    this.functionName = name;
  }
}

export class InvalidArityError extends JmesPathError {
  readonly functionName: string;
  constructor(name: string, message: string) {
    super('invalid-arity', message);
    this.name = 'InvalidArityError';
    this.functionName = name;
  }
}

export class InvalidTypeError extends JmesPathError {
  readonly functionName: string;
  constructor(name: string, message: string) {
    super('invalid-type', message);
    this.name = 'InvalidTypeError';
    this.functionName = name;
  }
}

/** An error raised by a function body. Kyverno's own functions prefix `JMESPath function 'name': `. */
export class FunctionError extends JmesPathError {
  readonly functionName: string;
  constructor(name: string, message: string) {
    super('function', message);
    this.name = 'FunctionError';
    this.functionName = name;
  }
}

export class JmesPathRuntimeError extends JmesPathError {
  constructor(message: string) {
    super('runtime', message);
    this.name = 'JmesPathRuntimeError';
  }
}

/** True for Kyverno's "unresolved variable" case: a missing key in a bare field access. */
export function isUnresolvedError(error: unknown): error is UnresolvedKeyError {
  return error instanceof JmesPathError && error.kind === 'unresolved';
}

// Kyverno's message templates (pkg/engine/jmespath/error.go).
export const kyvernoError = {
  generic: (fn: string, msg: string) => new FunctionError(fn, `JMESPath function '${fn}': ${msg}`),
  invalidArgumentType: (fn: string, index: number, type: string) =>
    new FunctionError(fn, `JMESPath function '${fn}': argument #${index} is not of type ${type}`),
  argOutOfBounds: (fn: string, index: number, bound: number) =>
    new FunctionError(fn, `JMESPath function '${fn}': ${index} argument is out of bounds (${bound})`),
  zeroDivision: (fn: string) => new FunctionError(fn, `JMESPath function '${fn}': Zero divisor passed`),
  nonIntModulo: (fn: string) => new FunctionError(fn, `JMESPath function '${fn}': Non-integer argument(s) passed for modulo`),
  nonIntRound: (fn: string) => new FunctionError(fn, `JMESPath function '${fn}': Non-integer argument(s) passed for round off`),
  typeMismatch: (fn: string) => new FunctionError(fn, `JMESPath function '${fn}': Types mismatch`),
};
