/** The direct children of a JMESPath syntax tree node, for the walks over a whole tree. */
import type { Node } from './parser.js';

/** Calls `visit` with each child of `node` (none for leaves: fields, literals, indexes, slices, identity). */
export function forEachChild(node: Node, visit: (child: Node) => void): void {
  switch (node.type) {
    case 'Subexpression':
    case 'IndexExpression':
    case 'Projection':
    case 'ValueProjection':
    case 'Or':
    case 'And':
    case 'Comparator':
    case 'Pipe':
      visit(node.left);
      visit(node.right);
      return;
    case 'FilterProjection':
      // The condition first: the order functions are listed in (CompiledExpression.functions).
      visit(node.condition);
      visit(node.left);
      visit(node.right);
      return;
    case 'Flatten':
    case 'Not':
    case 'ExpRef':
      visit(node.child);
      return;
    case 'MultiSelectList':
      for (const child of node.children) visit(child);
      return;
    case 'MultiSelectHash':
      for (const entry of node.entries) visit(entry.value);
      return;
    case 'Function':
      for (const arg of node.args) visit(arg);
      return;
    default:
      return;
  }
}
