import type { Expr } from '../../engine/ast.js';
import { celCompare } from '../../engine/runtime.js';
import { CelUint, INT64_MIN } from '../../engine/values.js';
import type { CelLibrary, LibraryRegistrar, MacroExpander } from '../../library.js';
import { celError, intOverflow } from '../errors.js';

/**
 * cel-go's ext.Math (all versions: Kyverno's base environment calls `ext.Math()`, pkg/cel/compiler/env.go):
 * the `math.greatest`/`math.least` macros over `math.@max`/`math.@min`, rounding, sign and abs, the
 * float classifications, bitwise operations on int and uint, and sqrt. Kyverno's own two-argument
 * `math.round(double, int)` (math.ts) stays beside the one-argument round here.
 */

type Num = bigint | number | CelUint;

const isNumeric = (v: unknown): v is Num => typeof v === 'bigint' || typeof v === 'number' || v instanceof CelUint;

/** cel-go's isNumericArgType: a numeric literal, or any expression that is no literal or aggregate. */
function numericArg(e: Expr): boolean {
  if (e.kind === 'literal') return isNumeric(e.value);
  return e.kind !== 'list' && e.kind !== 'map' && e.kind !== 'struct';
}

/** The macro: variadic arguments or one list, checked where cel-go checks them (at parse time). */
function extremumMacro(macro: 'greatest' | 'least', fn: string): MacroExpander {
  const name = `math.${macro}()`;
  return (f, pos, target, args) => {
    if (target?.kind !== 'ident' || target.name !== 'math') return undefined;
    if (args.length === 0) f.error(target.pos, `${name} requires at least one argument`);
    if (args.length === 1) {
      const a = args[0];
      const numericList = a.kind === 'list' && a.elements.length > 0 && a.elements.every(numericArg);
      if (!numericList && !numericArg(a)) f.error(a.pos, `${name} invalid single argument value`);
      return f.call(pos, fn, [a]);
    }
    for (const a of args) if (!numericArg(a)) f.error(a.pos, `${name} simple literal arguments must be numeric`);
    return f.call(pos, fn, args.length === 2 ? args : [f.list(pos, args)]);
  };
}

/**
 * The pair step of math.@max/@min: keeps `first` unless comparing it with `second` gives `secondWins`
 * (-1: second is greater, for max; 1: second is less, for min); numbers of different types compare by
 * value. cel-go's errors: an unordered pair (NaN) or a non-number.
 */
function pick(fn: string, secondWins: number, first: unknown, second: unknown): unknown {
  if (!isNumeric(first)) throw celError('no such overload');
  if (!isNumeric(second)) throw celError(`no such overload: ${fn}`);
  const c = celCompare(first, second);
  if (c === undefined) throw celError(`NaN values cannot be ordered: ${fn}`);
  return c === secondWins ? second : first;
}

/** Over a list: empty is an error, and any failed step (a non-number, NaN) reads as "no such overload". */
function pickList(fn: string, secondWins: number, list: readonly unknown[]): unknown {
  if (list.length === 0) throw celError(`${fn}(list) argument must not be empty`);
  let best = list[0];
  for (let i = 1; i < list.length; i++) {
    try {
      best = pick(fn, secondWins, best, list[i]);
    } catch {
      throw celError(`no such overload: ${fn}`);
    }
  }
  if (!isNumeric(best)) throw celError(`no such overload: ${fn}`);
  return best;
}

function registerExtremum(r: LibraryRegistrar, fn: string, secondWins: number): void {
  for (const t of ['int', 'uint', 'double']) {
    r.registerFunction(`${fn}(${t}): ${t}`, (v: unknown) => v);
    r.registerFunction(`${fn}(list<${t}>): ${t}`, (l: readonly unknown[]) => pickList(fn, secondWins, l));
    for (const u of ['int', 'uint', 'double']) {
      r.registerFunction(`${fn}(${t}, ${u}): ${t === u ? t : 'dyn'}`, (a: unknown, b: unknown) => pick(fn, secondWins, a, b));
    }
  }
}

/** Go's math.Round: half away from zero (JS Math.round rounds half up). */
const roundHalfAway = (v: number) => (v < 0 ? -Math.round(-v) : Math.round(v));

function absInt(v: bigint): bigint {
  if (v === INT64_MIN) throw intOverflow();
  return v < 0n ? -v : v;
}

function signDouble(v: number): number {
  if (Number.isNaN(v)) return v;
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

function shiftCount(fn: string, bits: bigint): bigint {
  if (bits < 0n) throw celError(`${fn}() negative offset: ${bits}`);
  return bits;
}

// Go shifts of 64 bits or more give 0; a right shift of an int is logical (through uint64), as cel-go's.
const shl = (fn: string, v: bigint, bits: bigint, asN: (v: bigint) => bigint) => {
  const n = shiftCount(fn, bits);
  return n >= 64n ? 0n : asN(v << n);
};
const shr = (fn: string, v: bigint, bits: bigint, asN: (v: bigint) => bigint) => {
  const n = shiftCount(fn, bits);
  return n >= 64n ? 0n : asN(BigInt.asUintN(64, v) >> n);
};
const asInt = (v: bigint) => BigInt.asIntN(64, v);
const asUint = (v: bigint) => BigInt.asUintN(64, v);
const uint = (v: bigint) => new CelUint(v);

export const mathExtLibrary: CelLibrary = {
  name: 'cel.lib.ext.math',
  register(r: LibraryRegistrar) {
    r.registerMacro('greatest', 'variadic', true, extremumMacro('greatest', 'math.@max'));
    r.registerMacro('least', 'variadic', true, extremumMacro('least', 'math.@min'));
    registerExtremum(r, 'math.@max', -1);
    registerExtremum(r, 'math.@min', 1);

    r.registerFunction('math.ceil(double): double', Math.ceil);
    r.registerFunction('math.floor(double): double', Math.floor);
    r.registerFunction('math.round(double): double', roundHalfAway);
    r.registerFunction('math.trunc(double): double', Math.trunc);
    r.registerFunction('math.isInf(double): bool', (v: number) => v === Infinity || v === -Infinity);
    r.registerFunction('math.isNaN(double): bool', Number.isNaN);
    r.registerFunction('math.isFinite(double): bool', Number.isFinite);

    r.registerFunction('math.abs(double): double', Math.abs);
    r.registerFunction('math.abs(int): int', absInt);
    r.registerFunction('math.abs(uint): uint', (v: CelUint) => v);
    r.registerFunction('math.sign(double): double', signDouble);
    r.registerFunction('math.sign(int): int', (v: bigint) => (v > 0n ? 1n : v < 0n ? -1n : 0n));
    r.registerFunction('math.sign(uint): uint', (v: CelUint) => uint(v.value === 0n ? 0n : 1n));

    r.registerFunction('math.bitAnd(int, int): int', (a: bigint, b: bigint) => a & b);
    r.registerFunction('math.bitAnd(uint, uint): uint', (a: CelUint, b: CelUint) => uint(a.value & b.value));
    r.registerFunction('math.bitOr(int, int): int', (a: bigint, b: bigint) => a | b);
    r.registerFunction('math.bitOr(uint, uint): uint', (a: CelUint, b: CelUint) => uint(a.value | b.value));
    r.registerFunction('math.bitXor(int, int): int', (a: bigint, b: bigint) => a ^ b);
    r.registerFunction('math.bitXor(uint, uint): uint', (a: CelUint, b: CelUint) => uint(a.value ^ b.value));
    r.registerFunction('math.bitNot(int): int', (a: bigint) => ~a);
    r.registerFunction('math.bitNot(uint): uint', (a: CelUint) => uint(asUint(~a.value)));
    r.registerFunction('math.bitShiftLeft(int, int): int', (a: bigint, n: bigint) => shl('math.bitShiftLeft', a, n, asInt));
    r.registerFunction('math.bitShiftLeft(uint, int): uint', (a: CelUint, n: bigint) => uint(shl('math.bitShiftLeft', a.value, n, asUint)));
    r.registerFunction('math.bitShiftRight(int, int): int', (a: bigint, n: bigint) => shr('math.bitShiftRight', a, n, asInt));
    r.registerFunction('math.bitShiftRight(uint, int): uint', (a: CelUint, n: bigint) => uint(shr('math.bitShiftRight', a.value, n, asUint)));

    r.registerFunction('math.sqrt(double): double', Math.sqrt);
    r.registerFunction('math.sqrt(int): double', (v: bigint) => Math.sqrt(Number(v)));
    r.registerFunction('math.sqrt(uint): double', (v: CelUint) => Math.sqrt(Number(v.value)));
  },
};
