import type { CelLibrary, LibraryRegistrar } from '../library.js';
import { actualSize, regexCost } from './cost.js';
import { celError } from './errors.js';
import { compileRe2, RegexSyntaxError, validateRegexLiteral } from './re2.js';

/**
 * Regular expressions with RE2 semantics: cel-go's `matches` (replacing the standard library's) and
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
  register(r: LibraryRegistrar) {
    r.registerFunction('string.matches(string): bool', matches);
    r.registerFunction('matches(string, string): bool', matches);
    r.registerFunction('string.find(string): string', find);
    r.registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p));
    r.registerFunction('string.findAll(string, int): list<string>', findAll);
    // cel-go's ValidateRegexLiterals: the first argument after the receiver, so the pattern of
    // s.matches(re) but the input of matches(s, re).
    r.registerLiteralCheck('matches', (literal) => (validateRegexLiteral(literal) === undefined ? undefined : 'invalid matches argument'));
    // The regex optimisations of program creation (cel-go's for matches, Kubernetes' for find and
    // findAll): the pattern, argument 1 counting the receiver.
    for (const fn of ['matches', 'find', 'findAll']) r.registerPlanCheck(fn, 1, validateRegexLiteral);
  },
  callCost: regexCallCost,
  // The cost is the input's and the pattern's, whatever the result: a call over the limit is not made.
  callCostFromArgs: regexCallCost,
};

/** Kubernetes' cost of a regex call: the input's traversal times the pattern's size. */
function regexCallCost(name: string, args: readonly unknown[]): number | undefined {
  switch (name) {
    case 'matches':
    case 'find':
    case 'findAll':
      return args.length >= 2 ? regexCost(args[0], actualSize(args[1])) : undefined;
  }
  return undefined;
}
