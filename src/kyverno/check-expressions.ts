/**
 * The JMESPath a rule holds, checked when the policy is loaded (issue 10): every `{{ … }}` variable in
 * every string of the rule (patches, preconditions, foreach lists, context entries, messages — whole-rule
 * substitution reaches them all) and the bare expressions of `foreach.list` and `jmesPath` fields. An
 * expression that does not parse, or calls a function Kyverno does not have, fails every request that
 * reaches it; reporting it at load turns a denied request into a problem in `validate` and `/readyz`.
 *
 * Not checked: a variable whose text holds another variable (`{{ images.containers."{{element.name}}".tag }}`:
 * the inner one is checked, the outer one only exists once the inner one is resolved), `{{@}}`, and text
 * holding `$(…)` references (replaced before variables).
 */
import type { JsonValue } from '../json/index.js';
import type { Report } from './compile-report.js';
import { findVariables, variableExpression } from './context/variable-syntax.js';
import { messageOf } from './errors.js';
import { compile as compileJmesPath } from './jmespath/index.js';

export interface ExpressionProblem {
  /** Dotted field path inside the checked value, from `base` (`spec.rules[0].mutate.foreach[0].list`). */
  readonly path: string;
  readonly message: string;
}

/** Why one bare JMESPath expression would fail at every evaluation, or undefined when it is fine. */
export function jmesPathProblem(expression: string): string | undefined {
  let unknown: readonly string[];
  try {
    unknown = compileJmesPath(expression).unknownFunctions;
  } catch (error) {
    return `invalid JMESPath expression ${JSON.stringify(expression)}: ${messageOf(error)}`;
  }
  if (unknown.length === 0) return undefined;
  const names = [...new Set(unknown)];
  return `JMESPath expression ${JSON.stringify(expression)} calls ${names.length === 1 ? 'an unknown function' : 'unknown functions'}: ${names.join(', ')}`;
}

/**
 * A bare JMESPath field: a syntax error makes the policy invalid (as it always has); an unknown function
 * is an `expression` finding. Text with variables is checked once they are substituted (its variables
 * are checked with the rest of the rule).
 */
export function checkJmesPath(expression: string, path: string, report: Report): void {
  if (expression.includes('{{')) return;
  try {
    compileJmesPath(expression);
  } catch (error) {
    report.error(path, `invalid JMESPath expression: ${messageOf(error)}`);
    return;
  }
  const problem = jmesPathProblem(expression);
  if (problem) report.find(path, problem, 'expression');
}

/** The problems of the `{{ … }}` variables in one string (innermost variables only). */
export function variableProblems(text: string): string[] {
  if (!text.includes('{{') || text.includes('$(')) return [];
  const out: string[] = [];
  for (const m of findVariables(text)) {
    const expression = variableExpression(m[2].slice(2, -2));
    if (expression === '@' || expression === '') continue;
    const problem = jmesPathProblem(expression);
    if (problem) out.push(`variable ${m[2]}: ${problem}`);
  }
  return out;
}

/** A field path as the findings write it: `base.a.b[0]["x/y"]`. */
export function fieldPath(base: string, segments: readonly (string | number)[]): string {
  let out = base;
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(s)) out += out === '' ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** Every variable problem in a document (strings and map keys), with the field path of each. */
export function documentVariableProblems(document: JsonValue, base: string): ExpressionProblem[] {
  const out: ExpressionProblem[] = [];
  const segments: (string | number)[] = [];
  const visit = (value: JsonValue) => {
    if (typeof value === 'string') {
      for (const message of variableProblems(value)) out.push({ path: fieldPath(base, segments), message });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => {
        segments.push(i);
        visit(item);
        segments.pop();
      });
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) {
        segments.push(key);
        for (const message of variableProblems(key)) out.push({ path: fieldPath(base, segments), message: `map key: ${message}` });
        visit(value[key]);
        segments.pop();
      }
    }
  };
  visit(document);
  return out;
}
