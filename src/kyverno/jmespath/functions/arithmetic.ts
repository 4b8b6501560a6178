/**
 * Kyverno's arithmetic (pkg/engine/jmespath/arithmetic.go): numbers, Kubernetes quantities and Go
 * durations. A string operand is a quantity if it parses as one ("12", "100Mi", "1m" — milli), else a
 * duration ("1h30m"). Mixing kinds is an error except where Kyverno allows it (scalar × quantity,
 * quantity ÷ scalar, …). Quantity and duration results are strings.
 */
import { durationSeconds, formatDuration, SECOND, tryParseDuration } from '../../../go/index.js';
import { formatFloatG } from '../../../go/index.js';
import { floatToInt64, wrap64 } from '../../../go/index.js';
import {
  addQuantities,
  approximateFloat,
  formatQuantity,
  mulQuantities,
  parseQuantity,
  QuantityError,
  quoRoundDown,
  subQuantities,
  tryParseQuantity,
  type Quantity,
} from '../../go/quantity.js';
import { FunctionError, kyvernoError } from '../errors.js';
import type { FunctionDef } from '../registry.js';
import { intNumberProblem, type Value } from '../values.js';
import { goInt } from './strings.js';

type Operand = { kind: 'scalar'; v: number } | { kind: 'quantity'; q: Quantity } | { kind: 'duration'; d: bigint };

function operand(v: Value): Operand | null {
  if (typeof v === 'number') return { kind: 'scalar', v };
  if (typeof v === 'string') {
    const q = tryParseQuantity(v);
    if (q) return { kind: 'quantity', q };
    const d = tryParseDuration(v);
    return d === undefined ? null : { kind: 'duration', d };
  }
  return null;
}

function operands(args: Value[], fn: string): [Operand, Operand] {
  const a = operand(args[0]);
  const b = operand(args[1]);
  if (!a || !b) throw kyvernoError.generic(fn, 'invalid operand');
  return [a, b];
}

/** The scalar as a quantity, the way Kyverno does it: ParseQuantity(fmt.Sprintf("%v", f)). */
function scalarQuantity(f: number): Quantity {
  try {
    return parseQuantity(formatFloatG(f));
  } catch (e) {
    throw new FunctionError('arithmetic', (e as Error).message);
  }
}

function add(a: Operand, b: Operand, fn: string): Value {
  if (a.kind === 'quantity' && b.kind === 'quantity') return formatQuantity(addQuantities(a.q, b.q));
  if (a.kind === 'duration' && b.kind === 'duration') return formatDuration(wrap64(a.d + b.d));
  if (a.kind === 'scalar' && b.kind === 'scalar') return a.v + b.v;
  throw kyvernoError.typeMismatch(fn);
}

function subtract(a: Operand, b: Operand): Value {
  if (a.kind === 'quantity' && b.kind === 'quantity') return formatQuantity(subQuantities(a.q, b.q));
  if (a.kind === 'duration' && b.kind === 'duration') return formatDuration(wrap64(a.d - b.d));
  if (a.kind === 'scalar' && b.kind === 'scalar') return a.v - b.v;
  throw kyvernoError.typeMismatch('subtract');
}

function multiply(a: Operand, b: Operand): Value {
  if (a.kind === 'scalar' && b.kind === 'scalar') return a.v * b.v;
  if (a.kind === 'scalar' && b.kind !== 'scalar') return multiply(b, a);
  if (b.kind !== 'scalar') throw kyvernoError.typeMismatch('multiply');
  if (a.kind === 'quantity') return formatQuantity(mulQuantities(a.q, scalarQuantity(b.v), a.q.format));
  const seconds = durationSeconds((a as { d: bigint }).d) * b.v;
  return formatDuration(floatToInt64(seconds * Number(SECOND)));
}

function divide(a: Operand, b: Operand): Value {
  if (a.kind === 'quantity') {
    if (b.kind === 'quantity') {
      const divisor = approximateFloat(b.q);
      if (divisor === 0) throw kyvernoError.zeroDivision('divide');
      return approximateFloat(a.q) / divisor;
    }
    if (b.kind === 'scalar') {
      if (b.v === 0) throw kyvernoError.zeroDivision('divide');
      const q = scalarQuantity(b.v);
      const scale = Math.max(a.q.scale, q.scale);
      return formatQuantity(quoRoundDown(a.q, q, scale, a.q.format));
    }
  } else if (a.kind === 'duration') {
    if (b.kind === 'duration') {
      if (durationSeconds(b.d) === 0) throw kyvernoError.zeroDivision('divide');
      return durationSeconds(a.d) / durationSeconds(b.d);
    }
    if (b.kind === 'scalar') {
      if (b.v === 0) throw kyvernoError.zeroDivision('divide');
      return formatDuration(floatToInt64((durationSeconds(a.d) / b.v) * Number(SECOND)));
    }
  } else if (b.kind === 'scalar') {
    if (b.v === 0) throw kyvernoError.zeroDivision('divide');
    return a.v / b.v;
  }
  throw kyvernoError.typeMismatch('divide');
}

/** Go's int64(f) followed by the integrality check Kyverno makes. */
function integral(f: number): bigint | null {
  const i = floatToInt64(f);
  return Number(i) === f ? i : null;
}

function modulo(a: Operand, b: Operand): Value {
  if (a.kind === 'quantity' && b.kind === 'quantity') {
    const i1 = integral(approximateFloat(a.q));
    const i2 = integral(approximateFloat(b.q));
    if (i1 === null || i2 === null) throw kyvernoError.nonIntModulo('modulo');
    if (i2 === 0n) throw kyvernoError.zeroDivision('modulo');
    return formatQuantity({ unscaled: i1 % i2, scale: 0, format: a.q.format });
  }
  if (a.kind === 'duration' && b.kind === 'duration') {
    if (b.d === 0n) throw kyvernoError.zeroDivision('modulo');
    return formatDuration(a.d % b.d);
  }
  if (a.kind === 'scalar' && b.kind === 'scalar') {
    const i1 = integral(a.v);
    const i2 = integral(b.v);
    if (i1 === null || i2 === null) throw kyvernoError.nonIntModulo('modulo');
    if (i2 === 0n) throw kyvernoError.zeroDivision('modulo');
    return Number(i1 % i2);
  }
  throw kyvernoError.typeMismatch('modulo');
}

/** math.Round: half away from zero. */
export function goRound(x: number): number {
  if (!Number.isFinite(x)) return x;
  const t = Math.trunc(x);
  if (Math.abs(x - t) >= 0.5) return t + Math.sign(x);
  return t === 0 ? x * 0 : t; // keeps the sign of zero like Go
}

const ANY2 = [{ types: ['any' as const] }, { types: ['any' as const] }];

/** Runs one operation; an exact quantity result too large to compute is this function's error. */
function exact(fn: string, op: () => Value): Value {
  try {
    return op();
  } catch (e) {
    if (e instanceof QuantityError) throw kyvernoError.generic(fn, e.message);
    throw e;
  }
}

export const arithmeticFunctions: FunctionDef[] = [
  {
    name: 'add',
    args: ANY2,
    returns: ['any'],
    note: 'does arithmetic addition of two specified values of numbers, quantities, and durations',
    call: (args) => exact('add', () => add(...operands(args, 'add'), 'add')),
  },
  {
    name: 'sum',
    args: [{ types: ['array'] }],
    returns: ['any'],
    note: 'does arithmetic addition of specified array of values of numbers, quantities, and durations',
    call: ([items]) => {
      const list = items as Value[];
      if (list.length === 0) throw kyvernoError.generic('sum', 'at least one element in the array is required');
      let result: Value = list[0];
      for (let i = 1; i < list.length; i++) result = exact('sum', () => add(...operands([result, list[i]], 'sum'), 'sum'));
      return result;
    },
  },
  {
    name: 'subtract',
    args: ANY2,
    returns: ['any'],
    note: 'does arithmetic subtraction of two specified values of numbers, quantities, and durations',
    call: (args) => exact('subtract', () => subtract(...operands(args, 'subtract'))),
  },
  {
    name: 'multiply',
    args: ANY2,
    returns: ['any'],
    note: 'does arithmetic multiplication of two specified values of numbers, quantities, and durations',
    call: (args) => exact('multiply', () => multiply(...operands(args, 'multiply'))),
  },
  {
    name: 'divide',
    args: ANY2,
    returns: ['any'],
    note: 'divisor must be non zero',
    call: (args) => exact('divide', () => divide(...operands(args, 'divide'))),
  },
  {
    name: 'modulo',
    args: ANY2,
    returns: ['any'],
    note: 'divisor must be non-zero, arguments must be integers',
    call: (args) => exact('modulo', () => modulo(...operands(args, 'modulo'))),
  },
  {
    name: 'round',
    args: [{ types: ['number'] }, { types: ['number'] }],
    returns: ['number'],
    note: 'does roundoff to upto the given decimal places',
    call: ([value, digits]) => {
      const d = digits as number;
      if (intNumberProblem(d)) throw kyvernoError.nonIntRound('round');
      // Kyverno's format string lacks its arguments; Go prints them as %!d(MISSING).
      if (d < 0) throw kyvernoError.generic('round', '%!d(MISSING) argument is out of bounds (%!d(MISSING))');
      const shift = 10 ** goInt(d);
      return goRound((value as number) * shift) / shift;
    },
  },
];
