/**
 * Evaluates an expression in kube-apiserver's environment (MutatingAdmissionPolicy, compiled as a
 * variable: any result type) against an admission input: its value, or its error without the
 * `expression '...' resulted in error: ` prefix, or its compile error.
 */
import { Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression, type AdmissionInput } from '../../../src/cel/index.js';

export type Outcome = { value: unknown } | { error: string } | { compileError: string };

/** The value and the runtime cost kube-apiserver's cost tracker would charge. */
export function k8sCost(expr: string, input: AdmissionInput = {}): { value: unknown; cost: number } {
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) throw new Error(c.message);
  const r = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c.compiled);
  if (!r.ok) throw new Error(r.message);
  return { value: r.value, cost: r.cost };
}

export function k8sEval(expr: string, input: AdmissionInput = {}): Outcome {
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) return { compileError: c.message };
  const r = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(c.compiled);
  if (r.ok) return { value: r.value };
  return { error: r.message.replace(/^expression '[\s\S]*' resulted in error: /, '') };
}
