/**
 * Compile-time check of `'<constant>'.format([<list literal>])`, as cel-go's strings library (versions 1
 * to 3, so Kubernetes' version 2) validates it since cel-go v0.25 (ext/formatting.go
 * stringFormatValidator, commit 8890f56d): the format string is parsed with the clauses checking the
 * checked type of the list element they take, and a list longer than the clauses take is an error.
 * The texts are the runtime formatter's (string-format.ts), reported at the element that failed or at
 * the call.
 */
import { parseInt64 } from '../../go/index.js';
import type { CallExpr, Expr } from '../engine/ast.js';
import type { CelIssue } from '../engine/errors.js';
import { Kind, type CelType } from '../engine/types.js';

/** A clause's type error, reported at the list element (cel-go's formatError carries its id). */
class ElementError {
  constructor(
    readonly message: string,
    readonly at: Expr,
  ) {}
}

/** A parse error of the format string, reported at the call. */
class CallError {
  constructor(readonly message: string) {}
}

const utf8 = new TextEncoder();

/** The issue of a format call cel-go's validator refuses, or undefined. `library`: the strings library's name. */
export function formatCallIssue(call: CallExpr, library: string): CelIssue | undefined {
  const target = call.target;
  if (!target || target.kind !== 'literal' || typeof target.value !== 'string') return undefined;
  if (call.args.length !== 1 || call.args[0].kind !== 'list') return undefined;
  // cel-go matches a call the checker resolved to string_format (or an unresolved one).
  if (call.overloads?.length && !call.overloads.some((o) => o.library === library && o.fn === 'format')) return undefined;
  const args = call.args[0].elements;
  let requested: number;
  try {
    requested = checkFormat(utf8.encode(target.value), args);
  } catch (e) {
    if (e instanceof ElementError) return { message: e.message, offset: e.at.pos };
    if (e instanceof CallError) return { message: e.message, offset: call.pos };
    throw e;
  }
  if (args.length > requested) {
    return { message: `too many arguments supplied to string.format (expected ${requested}, got ${args.length})`, offset: call.pos };
  }
  return undefined;
}

/**
 * cel-go's parseFormatString over the format's bytes (Go indexes a string by byte) with the checking
 * callbacks; returns how many arguments the clauses asked for.
 */
function checkFormat(f: Uint8Array, args: readonly Expr[]): number {
  let requested = 0;
  let argIndex = 0;
  for (let i = 0; i < f.length; ) {
    if (f[i] !== 0x25 /* % */) {
      i++;
      continue;
    }
    if (i + 1 < f.length && f[i + 1] === 0x25) {
      i += 2;
      continue;
    }
    // The checker's Arg counts the request before anything can fail.
    requested++;
    if (i + 1 >= f.length) throw new CallError('unexpected end of string');
    if (argIndex >= args.length) throw new CallError(`index ${argIndex} out of range`);
    i += 1 + checkClause(f, i + 1, args[argIndex]);
    argIndex++;
  }
  return requested;
}

/** Parses the clause at `start` (after `%`) and checks `arg` against it; returns the bytes read. */
function checkClause(f: Uint8Array, start: number, arg: Expr): number {
  let i = start;
  if (f[i] === 0x2e /* . */) {
    i++;
    let digits = '';
    for (;;) {
      if (i >= f.length) throw parseError('error while parsing precision: could not find end of precision specifier');
      if (f[i] < 0x30 || f[i] > 0x39) break;
      digits += String.fromCharCode(f[i]);
      i++;
    }
    const atoi = goAtoiError(digits);
    if (atoi) throw parseError(`error while parsing precision: error while converting precision to integer: ${atoi}`);
  }
  // rune(formatStr[i]): one byte, so a multi-byte character reads as its first byte's Latin-1 letter.
  const verb = String.fromCharCode(f[i]);
  i++;
  switch (verb) {
    case 's':
      checkString(arg);
      break;
    case 'd':
      expectKind(arg, [Kind.Int, Kind.Uint], 'decimal clause can only be used on integers');
      break;
    case 'f':
      // Strings are allowed: "NaN", "Infinity" and "-Infinity" are valid values.
      expectKind(arg, [Kind.Double, Kind.String], 'fixed-point clause can only be used on doubles');
      break;
    case 'e':
      expectKind(arg, [Kind.Double, Kind.String], 'scientific clause can only be used on doubles');
      break;
    case 'b':
      expectKind(arg, [Kind.Int, Kind.Uint, Kind.Bool], 'only integers and bools can be formatted as binary');
      break;
    case 'x':
    case 'X':
      expectKind(arg, [Kind.Int, Kind.Uint, Kind.String, Kind.Bytes], 'only integers, byte buffers, and strings can be formatted as hex');
      break;
    case 'o':
      expectKind(arg, [Kind.Int, Kind.Uint], 'octal clause can only be used on integers');
      break;
    default:
      throw parseError(`unrecognized formatting clause "${verb}"`);
  }
  return i - start;
}

function parseError(message: string): CallError {
  return new CallError(`could not parse formatting clause: ${message}`);
}

/** strconv.Atoi's error for a run of ASCII digits (empty, or beyond int64), or undefined. */
function goAtoiError(digits: string): string | undefined {
  if (digits === '') return 'strconv.Atoi: parsing "": invalid syntax';
  if (parseInt64(digits) === undefined) return `strconv.Atoi: parsing "${digits}": value out of range`;
  return undefined;
}

/** verifyTypeOneOf: dyn passes, otherwise the kind must be one of `kinds` (parameters are not looked at). */
function kindAllowed(t: CelType | undefined, kinds: readonly Kind[]): boolean {
  if (!t || t.kind === Kind.Dyn) return true;
  return kinds.includes(t.kind);
}

function expectKind(arg: Expr, kinds: readonly Kind[], message: string): void {
  if (!kindAllowed(arg.type, kinds)) throw new ElementError(`error during formatting: ${message}, was given ${typeName(arg.type)}`, arg);
}

const STRING_KINDS = [
  Kind.List,
  Kind.Map,
  Kind.Int,
  Kind.Uint,
  Kind.Double,
  Kind.Bool,
  Kind.String,
  Kind.Timestamp,
  Kind.Bytes,
  Kind.Duration,
  Kind.Type,
  Kind.Null,
];

/** verifyString: the element's kind, and the members of a list or map literal, recursively. */
function checkString(arg: Expr): void {
  if (!kindAllowed(arg.type, STRING_KINDS)) {
    throw new ElementError(
      `error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typeName(arg.type)}`,
      arg,
    );
  }
  if (arg.kind === 'list') arg.elements.forEach(checkString);
  else if (arg.kind === 'map') {
    for (const entry of arg.entries) {
      checkString(entry.key);
      checkString(entry.value);
    }
  }
}

/** cel-go's Type.TypeName(): the bare name (`list`, `map`, `optional_type`, a struct's name). */
function typeName(t: CelType | undefined): string {
  return t ? t.name : 'dyn';
}
