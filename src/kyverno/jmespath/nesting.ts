/**
 * How deep an expression may nest. go-jmespath has no bound (Go's stacks grow); here the parser, the
 * closure compiler and the evaluator recurse once per level, so without a bound of its own an expression
 * compiled or failed by whether the JavaScript stack of its first caller had room, and the compile
 * cache kept that answer for every later caller. The bound is the JSON literals' (DEFAULT_MAX_DEPTH).
 */
import { DEFAULT_MAX_DEPTH } from '../../json/index.js';
import { forEachChild } from './children.js';
import type { Node } from './parser.js';

export const MAX_EXPRESSION_DEPTH = DEFAULT_MAX_DEPTH;

/** The message of an expression past the bound (the one a stack overflow while compiling gives too). */
export const TOO_DEEP = 'expression too deeply nested';

/**
 * True when `ast` is more than `max` nodes high. Iterative: a left-deep chain (`a.b.c…`, `a|b|c…`)
 * is built by the parser's loop, not its recursion, so its height is only known from the tree. Runs
 * once per compile.
 */
export function nestsDeeperThan(ast: Node, max: number): boolean {
  const nodes: Node[] = [ast];
  const heights: number[] = [1];
  let below = 0;
  const push = (child: Node) => {
    nodes.push(child);
    heights.push(below);
  };
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const height = heights.pop()!;
    if (height > max) return true;
    below = height + 1;
    forEachChild(node, push);
  }
  return false;
}
