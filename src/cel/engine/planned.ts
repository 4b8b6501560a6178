/**
 * What planning makes of an AST node: the closure that evaluates it (`Interp`), and what is known of it
 * at plan time (attribute, constant, folded call). Its own module so that the planner and plan-time
 * folding both use it without importing each other.
 */
import type { EvalState } from './eval-state.js';
import type { CelValue } from './values.js';

export type Interp = (s: EvalState) => any;

export interface Planned {
  fn: Interp;
  /** The node is an attribute in cel-go's sense (identifier or a qualifier chain on one). */
  attribute: boolean;
  /**
   * For an attribute: its evaluation as cel-go's `Attribute.Resolve` does it, without the observation
   * of the attribute itself (the SelectAndIdentCost of its root identifier or relative operand, which
   * `evalWatchAttr.Eval` charges); the qualifiers are charged. `fn` is `resolve` plus `observe`. A
   * conditional resolves its branches this way (cel-go's conditionalAttribute).
   */
  resolve?: Interp;
  /** For an attribute: what observing it costs (1; 0 for a conditional attribute). */
  observe?: number;
  /** The node is a compile-time constant (literal or folded aggregate). */
  constant?: { value: CelValue };
  /**
   * A call of a pure function on constant arguments, evaluated when planned (see foldCall): its value,
   * the cost its evaluation charged, and the largest result size it checked against the review guard.
   * Not a `constant`: cel-go does not fold calls, so a list or map holding one is built (and charged) at
   * run time.
   */
  folded?: { value: CelValue; cost: number; size: number };
}
