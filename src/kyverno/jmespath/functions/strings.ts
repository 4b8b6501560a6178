/** Kyverno's string functions (pkg/engine/jmespath/functions.go) with Go `strings` semantics. */
import { kyvernoError } from '../errors.js';
import { formatFloat32F } from '../../../go/index.js';
import { floatToInt64 } from '../../../go/index.js';
import { compareStrings } from '../../../go/index.js';
import { goCleanPath, goEqualFold, goReplace, replacedLength, goSplit, goToLower, goToUpper, goTrim, goTruncate } from '../gostrings.js';
import type { FunctionDef } from '../registry.js';
import type { Value } from '../values.js';

const S = { types: ['string' as const] };
const N = { types: ['number' as const] };
const str = (v: Value) => v as string;

/** Go's int(float64) as a number (exact: the result is an integral float64). */
export const goInt = (x: number): number => Number(floatToInt64(x));

/** Kyverno's ifaceToString for string|number arguments: numbers with float32 precision. */
export function ifaceToString(fn: string, index: number, v: Value): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return formatFloat32F(v);
  if (typeof v === 'boolean') return String(v);
  throw kyvernoError.invalidArgumentType(fn, index, 'String or Real');
}

export const stringFunctions: FunctionDef[] = [
  {
    name: 'compare',
    args: [S, S],
    returns: ['number'],
    note: 'compares two strings lexicographically',
    call: ([a, b]) => compareStrings(str(a), str(b)),
  },
  {
    name: 'equal_fold',
    args: [S, S],
    returns: ['boolean'],
    note: 'allows comparing two strings for equivalency where the only differences are letter cases',
    call: ([a, b]) => goEqualFold(str(a), str(b)),
  },
  {
    name: 'replace',
    args: [S, S, S, N],
    returns: ['string'],
    note: 'replaces a specified number of instances of the source string with the replacement string in a parent ',
    call: ([s, o, n, count], ctx) => {
      const times = goInt(count as number);
      ctx.guard.checkSize(replacedLength(str(s), str(o), str(n), times), 'the result of replace()');
      return goReplace(str(s), str(o), str(n), times);
    },
  },
  {
    name: 'replace_all',
    args: [S, S, S],
    returns: ['string'],
    note: 'replace all instances of one string with another in an overall parent string',
    call: ([s, o, n], ctx) => {
      ctx.guard.checkSize(replacedLength(str(s), str(o), str(n), -1), 'the result of replace_all()');
      return goReplace(str(s), str(o), str(n), -1);
    },
  },
  {
    name: 'to_upper',
    args: [S],
    returns: ['string'],
    note: 'takes in a string and outputs the same string with all upper-case letters',
    call: ([s]) => goToUpper(str(s)),
  },
  {
    name: 'to_lower',
    args: [S],
    returns: ['string'],
    note: 'takes in a string and outputs the same string with all lower-case letters',
    call: ([s]) => goToLower(str(s)),
  },
  {
    name: 'trim',
    args: [S, S],
    returns: ['string'],
    note: 'trims both ends of the source string by characters appearing in the second string',
    call: ([s, cut]) => goTrim(str(s), str(cut)),
  },
  {
    name: 'trim_prefix',
    args: [S, S],
    returns: ['string'],
    note: 'trims the second string prefix from the first string if the first string starts with the prefix',
    call: ([s, prefix]) => (str(s).startsWith(str(prefix)) ? str(s).slice(str(prefix).length) : str(s)),
  },
  {
    name: 'split',
    args: [S, S],
    returns: ['array[string]'],
    note: 'splits the first string when the second string is found and converts it into an array ',
    call: ([s, sep]) => goSplit(str(s), str(sep)),
  },
  {
    name: 'to_boolean',
    args: [S],
    returns: ['boolean'],
    note: "It returns true or false for any string, such as 'True', 'TruE', 'False', 'FAlse', 'faLSE', etc.",
    call: ([s]) => {
      const lower = goToLower(str(s));
      if (lower === 'true') return true;
      if (lower === 'false') return false;
      throw kyvernoError.generic('to_boolean', `lowercase argument must be 'true' or 'false' (provided: '${str(s)}')`);
    },
  },
  {
    name: 'path_canonicalize',
    args: [S],
    returns: ['string'],
    note: 'normalizes or canonicalizes a given path by removing excess slashes',
    call: ([s]) => goCleanPath(str(s)),
  },
  {
    name: 'truncate',
    args: [S, N],
    returns: ['string'],
    note: 'length argument must be enclosed in backticks; ex. "{{request.object.metadata.name | truncate(@, `9`)}}"',
    call: ([s, n]) => goTruncate(str(s), (n as number) < 0 ? 0 : goInt(n as number)),
  },
];
