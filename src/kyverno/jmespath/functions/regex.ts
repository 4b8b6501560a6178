/** Kyverno's regex and wildcard functions: RE2 through re2js with Go's regexp semantics. */
import { FunctionError, kyvernoError } from '../errors.js';
import { compileRegexp, regexpMatch, regexpReplaceAll } from '../goregexp.js';
import { wildcardMatch } from '../../../go/index.js';
import type { CallContext, FunctionDef } from '../registry.js';
import type { Value } from '../values.js';
import { ifaceToString } from './strings.js';

const S = { types: ['string' as const] };
const SN = { types: ['string' as const, 'number' as const] };

function compileOr(fn: string, pattern: string, prefixed: boolean) {
  try {
    return compileRegexp(pattern);
  } catch (e) {
    const msg = (e as Error).message;
    throw prefixed ? kyvernoError.generic(fn, msg) : new FunctionError(fn, msg);
  }
}

function replaceAll(fn: string, literal: boolean) {
  return ([pattern, src, repl]: Value[], ctx: CallContext) => {
    const s = ifaceToString(fn, 2, src);
    const r = ifaceToString(fn, 3, repl);
    return regexpReplaceAll(compileOr(fn, pattern as string, true), s, r, literal, ctx.guard);
  };
}

export const regexFunctions: FunctionDef[] = [
  {
    name: 'regex_replace_all',
    args: [S, SN, SN],
    returns: ['string'],
    note: 'converts all parameters to string',
    call: replaceAll('regex_replace_all', false),
  },
  {
    name: 'regex_replace_all_literal',
    args: [S, SN, SN],
    returns: ['string'],
    note: 'converts all parameters to string',
    call: replaceAll('regex_replace_all_literal', true),
  },
  {
    name: 'regex_match',
    args: [S, SN],
    returns: ['boolean'],
    note: 'first string is the regular exression which is compared with second input which can be a number or string',
    call: ([pattern, src]) => regexpMatch(compileOr('regex_match', pattern as string, false), ifaceToString('regex_match', 2, src)),
  },
  {
    name: 'pattern_match',
    args: [S, SN],
    returns: ['boolean'],
    note: "'*' matches zero or more alphanumeric characters, '?' matches a single alphanumeric character",
    call: ([pattern, src], ctx) => wildcardMatch(pattern as string, ifaceToString('regex_match', 2, src), ctx.guard),
  },
];
