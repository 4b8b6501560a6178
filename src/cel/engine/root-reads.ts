import type { Expr } from './ast.js';
import { parse } from './parser.js';

/**
 * The paths along which an expression reads the root variable `name`: every occurrence of the identifier
 * must start a chain of field selections (`object.spec.containers`, `has(object.metadata.labels)`), and
 * the chain's field names are a path. Whatever the expression does with the value at the end of a chain
 * depends on that value alone, so two values of the variable that hold the same values along every path
 * give the expression the same result. Undefined when that cannot be told from the syntax: the expression
 * does not parse, or a comprehension variable has the name (it would shadow the root variable).
 * A bare use of the variable gives the empty path (the whole value).
 */
export function rootReadPaths(expression: string, name: string): string[][] | undefined {
  const parsed = parse(expression);
  if (!parsed.expr) return undefined;
  const paths: string[][] = [];
  return collect(parsed.expr, name, paths) ? paths : undefined;
}

/** Adds the paths of `e` to `paths`; false when the reads cannot be told (see rootReadPaths). */
function collect(e: Expr, name: string, paths: string[][]): boolean {
  const path = chainPath(e, name);
  if (path !== undefined) {
    paths.push(path);
    return true;
  }
  switch (e.kind) {
    case 'literal':
    case 'ident':
      return true;
    case 'select':
      return collect(e.operand, name, paths);
    case 'call':
      if (e.target && !collect(e.target, name, paths)) return false;
      for (const a of e.args) if (!collect(a, name, paths)) return false;
      return true;
    case 'list':
      for (const x of e.elements) if (!collect(x, name, paths)) return false;
      return true;
    case 'map':
      for (const x of e.entries) if (!collect(x.key, name, paths) || !collect(x.value, name, paths)) return false;
      return true;
    case 'struct':
      for (const f of e.fields) if (!collect(f.value, name, paths)) return false;
      return true;
    case 'comprehension':
      if (e.iterVar === name || e.iterVar2 === name || e.accuVar === name) return false;
      for (const x of [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result]) if (!collect(x, name, paths)) return false;
      return true;
  }
}

/** The field names of `e` when it is the identifier `name` under a chain of selections (outermost last). */
function chainPath(e: Expr, name: string): string[] | undefined {
  if (e.kind === 'ident') return e.name === name ? [] : undefined;
  if (e.kind !== 'select') return undefined;
  const inner = chainPath(e.operand, name);
  if (inner === undefined) return undefined;
  inner.push(e.field);
  return inner;
}
