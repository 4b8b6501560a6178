/**
 * The CEL abstract syntax tree, shaped like cel-go's (macros are expanded into comprehensions by the
 * parser). The checker annotates nodes in place (`type`, resolved references and overloads).
 */
import type { CelType } from './types.js';
import type { Overload } from './functions.js';
import type { CelValue } from './values.js';

interface Node {
  readonly id: number;
  /** Source offset used for messages (operator, '(' of a call, '.' of a select, ...). */
  readonly pos: number;
  /** Set by the checker. */
  type?: CelType;
}

export interface LiteralExpr extends Node {
  kind: 'literal';
  value: CelValue;
}

export interface IdentExpr extends Node {
  kind: 'ident';
  name: string;
}

export interface SelectExpr extends Node {
  kind: 'select';
  operand: Expr;
  field: string;
  /** has(operand.field) */
  testOnly: boolean;
}

export interface CallExpr extends Node {
  kind: 'call';
  fn: string;
  target: Expr | null;
  args: Expr[];
  /** Overloads that matched at check time, in declaration order. */
  overloads?: Overload[];
}

export interface ListExpr extends Node {
  kind: 'list';
  elements: Expr[];
  /** Indices of `?elem` elements. */
  optionalIndices: number[];
}

export interface MapEntry {
  id: number;
  pos: number;
  key: Expr;
  value: Expr;
  optional: boolean;
}

export interface MapExpr extends Node {
  kind: 'map';
  entries: MapEntry[];
}

export interface StructField {
  id: number;
  pos: number;
  name: string;
  value: Expr;
  optional: boolean;
}

export interface StructExpr extends Node {
  kind: 'struct';
  typeName: string;
  fields: StructField[];
}

export interface ComprehensionExpr extends Node {
  kind: 'comprehension';
  iterVar: string;
  /** Second iteration variable of two-variable comprehensions (index/key first, value second). */
  iterVar2: string | null;
  iterRange: Expr;
  accuVar: string;
  accuInit: Expr;
  loopCondition: Expr;
  loopStep: Expr;
  result: Expr;
}

export type Expr = LiteralExpr | IdentExpr | SelectExpr | CallExpr | ListExpr | MapExpr | StructExpr | ComprehensionExpr;

/** Operator function names, as in cel-go. */
export const Op = {
  conditional: '_?_:_',
  and: '_&&_',
  or: '_||_',
  not: '!_',
  negate: '-_',
  equals: '_==_',
  notEquals: '_!=_',
  less: '_<_',
  lessEquals: '_<=_',
  greater: '_>_',
  greaterEquals: '_>=_',
  add: '_+_',
  subtract: '_-_',
  multiply: '_*_',
  divide: '_/_',
  modulo: '_%_',
  index: '_[_]',
  optIndex: '_[?_]',
  optSelect: '_?._',
  in: '@in',
  notStrictlyFalse: '@not_strictly_false',
} as const;

/** `a.b.c` → "a.b.c" when the expression is a chain of plain selects on an identifier. */
export function qualifiedName(e: Expr): string | undefined {
  if (e.kind === 'ident') return e.name;
  if (e.kind === 'select' && !e.testOnly) {
    const prefix = qualifiedName(e.operand);
    return prefix === undefined ? undefined : `${prefix}.${e.field}`;
  }
  return undefined;
}
