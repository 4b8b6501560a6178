/**
 * Macro expansion, mirroring cel-go's expansions so evaluation and cost match: has(), all/exists/
 * exists_one/existsOne/map/filter, the two-variable comprehensions (all/exists/existsOne/exists_one,
 * transformList/transformMap/transformMapEntry), cel.bind, optMap/optFlatMap and lists' sortBy.
 */
import { Op, type Expr } from './ast.js';
import type { CelValue } from './values.js';

export interface MacroFactory {
  literal(pos: number, value: CelValue): Expr;
  ident(pos: number, name: string): Expr;
  select(pos: number, operand: Expr, field: string, testOnly?: boolean): Expr;
  call(pos: number, fn: string, args: Expr[], target?: Expr | null): Expr;
  list(pos: number, elements: Expr[]): Expr;
  map(pos: number): Expr;
  comprehension(
    pos: number,
    iterRange: Expr,
    iterVar: string,
    iterVar2: string | null,
    accuVar: string,
    accuInit: Expr,
    loopCondition: Expr,
    loopStep: Expr,
    result: Expr,
  ): Expr;
  error(pos: number, message: string): never;
}

/** The accumulator name; '@' keeps it out of reach of user expressions. */
const ACCU = '@result';
const LEGACY_ACCU = '__result__';
export const MAP_INSERT = 'cel.@mapInsert';
export const SORT_BY_KEYS = '@sortByAssociatedKeys';
const UNUSED = '#unused';

export type Expander = (f: MacroFactory, pos: number, target: Expr | null, args: Expr[]) => Expr | undefined;

const macros = new Map<string, Expander>();
/** The key of a macro taking `argc` arguments, or any number ('*'); a receiver macro is called as `target.name(...)`. */
export const macroKey = (name: string, argc: number | '*', receiver: boolean) => `${name}:${argc}:${receiver}`;
/** Macros an environment adds to the standard ones (cel-go's cel.Macros option). */
export type MacroLookup = (key: string) => Expander | undefined;

function iterVarName(f: MacroFactory, e: Expr, message = 'argument must be a simple name'): string {
  if (e.kind !== 'ident') f.error(e.pos, message);
  if (e.name === ACCU || e.name === LEGACY_ACCU) f.error(e.pos, 'iteration variable overwrites accumulator variable');
  return e.name;
}

function twoIterVars(f: MacroFactory, a: Expr, b: Expr): [string, string] {
  const v1 = iterVarName(f, a);
  const v2 = iterVarName(f, b);
  if (v1 === v2) f.error(b.pos, `duplicate variable name: ${v1}`);
  return [v1, v2];
}

const accu = (f: MacroFactory, pos: number) => f.ident(pos, ACCU);

function quantifier(kind: 'all' | 'exists' | 'existsOne', two: boolean): Expander {
  return (f, pos, target, args) => {
    const [v1, v2] = two ? twoIterVars(f, args[0], args[1]) : [iterVarName(f, args[0]), null];
    const pred = args[two ? 2 : 1];
    switch (kind) {
      case 'all':
        return f.comprehension(pos, target!, v1, v2, ACCU, f.literal(pos, true),
          f.call(pos, Op.notStrictlyFalse, [accu(f, pos)]),
          f.call(pos, Op.and, [accu(f, pos), pred]),
          accu(f, pos));
      case 'exists':
        return f.comprehension(pos, target!, v1, v2, ACCU, f.literal(pos, false),
          f.call(pos, Op.notStrictlyFalse, [f.call(pos, Op.not, [accu(f, pos)])]),
          f.call(pos, Op.or, [accu(f, pos), pred]),
          accu(f, pos));
      case 'existsOne':
        return f.comprehension(pos, target!, v1, v2, ACCU, f.literal(pos, 0n),
          f.literal(pos, true),
          f.call(pos, Op.conditional, [pred, f.call(pos, Op.add, [accu(f, pos), f.literal(pos, 1n)]), accu(f, pos)]),
          f.call(pos, Op.equals, [accu(f, pos), f.literal(pos, 1n)]));
    }
  };
}

const mapMacro: Expander = (f, pos, target, args) => {
  const v = iterVarName(f, args[0], 'argument is not an identifier');
  const filter = args.length === 3 ? args[1] : null;
  const fn = args.length === 3 ? args[2] : args[1];
  let step = f.call(pos, Op.add, [accu(f, pos), f.list(pos, [fn])]);
  if (filter) step = f.call(pos, Op.conditional, [filter, step, accu(f, pos)]);
  return f.comprehension(pos, target!, v, null, ACCU, f.list(pos, []), f.literal(pos, true), step, accu(f, pos));
};

const filterMacro: Expander = (f, pos, target, args) => {
  const v = iterVarName(f, args[0], 'argument is not an identifier');
  let step = f.call(pos, Op.add, [accu(f, pos), f.list(pos, [f.ident(args[0].pos, v)])]);
  step = f.call(pos, Op.conditional, [args[1], step, accu(f, pos)]);
  return f.comprehension(pos, target!, v, null, ACCU, f.list(pos, []), f.literal(pos, true), step, accu(f, pos));
};

function transform(kind: 'list' | 'map' | 'mapEntry'): Expander {
  return (f, pos, target, args) => {
    const [v1, v2] = twoIterVars(f, args[0], args[1]);
    const filter = args.length === 4 ? args[2] : null;
    const t = args.length === 4 ? args[3] : args[2];
    let step: Expr;
    if (kind === 'list') step = f.call(pos, Op.add, [accu(f, pos), f.list(pos, [t])]);
    else if (kind === 'map') step = f.call(pos, MAP_INSERT, [accu(f, pos), f.ident(pos, v1), t]);
    else step = f.call(pos, MAP_INSERT, [accu(f, pos), t]);
    if (filter) step = f.call(pos, Op.conditional, [filter, step, accu(f, pos)]);
    const init = kind === 'list' ? f.list(pos, []) : f.map(pos);
    return f.comprehension(pos, target!, v1, v2, ACCU, init, f.literal(pos, true), step, accu(f, pos));
  };
}

const hasMacro: Expander = (f, _pos, _target, args) => {
  const a = args[0];
  if (a.kind !== 'select' || a.testOnly) return f.error(a.pos, 'invalid argument to has() macro');
  return f.select(a.pos, a.operand, a.field, true);
};

/**
 * cel.bind(v, init, expr): evaluates init once and binds it to v within expr. cel-go's ext.Bindings, not a
 * standard macro: only environments with the bindings library (src/cel/lib/bindings.ts) expand it.
 */
export const bindMacro: Expander = (f, pos, target, args) => {
  if (!target || target.kind !== 'ident' || target.name !== 'cel') return undefined;
  const v = iterVarName(f, args[0], 'cel.bind() variable names must be simple identifiers');
  return f.comprehension(pos, f.list(pos, []), UNUSED, null, v, args[1], f.literal(pos, false), f.ident(pos, v), args[2]);
};

function optMapMacro(flat: boolean): Expander {
  return (f, pos, target, args) => {
    const name = flat ? 'optFlatMap' : 'optMap';
    const v = iterVarName(f, args[0], `${name}() variable name must be a simple identifier`);
    const bound = f.comprehension(pos, f.list(pos, []), UNUSED, null, v,
      f.call(pos, 'value', [], target), f.literal(pos, false), f.ident(pos, v), args[1]);
    return f.call(pos, Op.conditional, [
      f.call(pos, 'hasValue', [], target),
      flat ? bound : f.call(pos, 'optional.of', [bound]),
      f.call(pos, 'optional.none', []),
    ]);
  };
}

/** list.sortBy(e, key): binds the list, maps it to keys and sorts by those keys (cel-go ext lists). */
const sortByMacro: Expander = (f, pos, target, args) => {
  const input = '@__sortBy_input__';
  const keys = mapMacro(f, pos, f.ident(pos, input), args)!;
  const sorted = f.call(pos, SORT_BY_KEYS, [keys], f.ident(pos, input));
  return f.comprehension(pos, f.list(pos, []), UNUSED, null, input, target!, f.literal(pos, false), f.ident(pos, input), sorted);
};

macros.set(macroKey('has', 1, false), hasMacro);
macros.set(macroKey('all', 2, true), quantifier('all', false));
macros.set(macroKey('exists', 2, true), quantifier('exists', false));
macros.set(macroKey('exists_one', 2, true), quantifier('existsOne', false));
macros.set(macroKey('existsOne', 2, true), quantifier('existsOne', false));
macros.set(macroKey('map', 2, true), mapMacro);
macros.set(macroKey('map', 3, true), mapMacro);
macros.set(macroKey('filter', 2, true), filterMacro);
macros.set(macroKey('all', 3, true), quantifier('all', true));
macros.set(macroKey('exists', 3, true), quantifier('exists', true));
macros.set(macroKey('existsOne', 3, true), quantifier('existsOne', true));
macros.set(macroKey('exists_one', 3, true), quantifier('existsOne', true));
macros.set(macroKey('transformList', 3, true), transform('list'));
macros.set(macroKey('transformList', 4, true), transform('list'));
macros.set(macroKey('transformMap', 3, true), transform('map'));
macros.set(macroKey('transformMap', 4, true), transform('map'));
macros.set(macroKey('transformMapEntry', 3, true), transform('mapEntry'));
macros.set(macroKey('transformMapEntry', 4, true), transform('mapEntry'));
macros.set(macroKey('optMap', 2, true), optMapMacro(false));
macros.set(macroKey('optFlatMap', 2, true), optMapMacro(true));
macros.set(macroKey('sortBy', 2, true), sortByMacro);

export function expandMacro(f: MacroFactory, pos: number, fn: string, target: Expr | null, args: Expr[], extra?: MacroLookup): Expr | undefined {
  const receiver = target !== null;
  // An environment's own macro of the same name and arity replaces the standard one (as in cel-go).
  const m = extra?.(macroKey(fn, args.length, receiver)) ?? extra?.(macroKey(fn, '*', receiver)) ?? macros.get(macroKey(fn, args.length, receiver));
  return m ? m(f, pos, target, args) : undefined;
}
