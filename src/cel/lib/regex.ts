import type { Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from '../library.js';
import { publicName, regexCost } from './cost.js';
import { celError } from './errors.js';
import { compileRe2, RegexSyntaxError, validateRegexLiteral } from './re2.js';
import { fn, overload, overrideAlias, overrideMethod } from './register.js';

/**
 * Regular expressions with RE2 semantics: cel-go's `matches` (replacing cel-js's JS-RegExp one) and
 * Kubernetes' `find` / `findAll` (`k8s.io/apiserver/pkg/cel/library/regex.go`).
 *
 *   <string>.matches(<string>) -> bool, matches(<string>, <string>) -> bool
 *   <string>.find(<string>) -> string
 *   <string>.findAll(<string>) -> list<string>, <string>.findAll(<string>, <int>) -> list<string>
 */

function compileFor(pattern: string, prefix: string) {
  try {
    return compileRe2(pattern);
  } catch (e) {
    if (e instanceof RegexSyntaxError) throw celError(prefix + e.message);
    throw e;
  }
}

function matches(s: string, pattern: string): boolean {
  return compileFor(pattern, '').test(s);
}

function find(s: string, pattern: string): string {
  return compileFor(pattern, 'Illegal regex: ').find(s);
}

function findAll(s: string, pattern: string, n: bigint = -1n): string[] {
  // Go converts the int64 limit to int; any negative value means "all".
  return compileFor(pattern, 'Illegal regex: ').findAll(s, n < 0n ? -1 : n > 2n ** 31n ? Infinity : Number(n));
}

export const regexLibrary: CelLibrary = {
  name: 'kubernetes.regex',
  register(env: Environment) {
    overrideMethod(env, 'matches', 1);
    overload(env, overrideAlias('matches'), 'string', ['string'], 'bool', matches);
    fn(env, 'matches(string, string): bool', matches);
    fn(env, 'string.find(string): string', find);
    fn(env, 'string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p));
    fn(env, 'string.findAll(string, int): list<string>', findAll);
  },
  callCost(name, args) {
    switch (publicName(name)) {
      case 'matches':
      case 'find':
      case 'findAll':
        return args.length >= 2 ? regexCost(args[0], args[1]) : undefined;
    }
    return undefined;
  },
};

/**
 * The compile error kube-apiserver reports for a constant, invalid regex argument, or undefined
 * when the pattern is valid: cel-go's literal validator for `matches`, and the regex optimisation
 * of program creation for `find` / `findAll`.
 */
export function regexLiteralCompileError(fnName: string, pattern: string): string | undefined {
  const err = validateRegexLiteral(pattern);
  if (err === undefined) return undefined;
  return fnName === 'matches' ? 'invalid matches argument' : `program instantiation failed: ${err}`;
}

interface AstLike {
  op: string;
  args: unknown;
}

function isAst(v: unknown): v is AstLike {
  return typeof v === 'object' && v !== null && typeof (v as AstLike).op === 'string' && 'args' in v;
}

function literalString(v: unknown): string | undefined {
  return isAst(v) && v.op === 'value' && typeof v.args === 'string' ? v.args : undefined;
}

/**
 * Walks a parsed cel-js AST and returns the compile errors for constant regex arguments of
 * `matches`, `find` and `findAll` (at most one per call), in source order.
 */
export function findRegexLiteralErrors(ast: unknown): string[] {
  const errors: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (!isAst(node)) return;
    const args = node.args;
    if (node.op === 'rcall' && Array.isArray(args)) {
      const [name, , callArgs] = args as [string, unknown, unknown[]];
      if ((name === 'matches' || name === 'find' || name === 'findAll') && Array.isArray(callArgs)) {
        const pattern = literalString(callArgs[0]);
        const err = pattern === undefined ? undefined : regexLiteralCompileError(name, pattern);
        if (err) errors.push(err);
      }
    } else if (node.op === 'call' && Array.isArray(args)) {
      const [name, callArgs] = args as [string, unknown[]];
      if (name === 'matches' && Array.isArray(callArgs) && callArgs.length === 2) {
        const pattern = literalString(callArgs[1]);
        const err = pattern === undefined ? undefined : regexLiteralCompileError(name, pattern);
        if (err) errors.push(err);
      }
    }
    if (node.op !== 'value') visit(args);
  };
  visit(ast);
  return errors;
}
