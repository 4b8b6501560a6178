/**
 * Kyverno's variable syntax (pkg/engine/variables/regex RegexVariables): `{{ … }}` not preceded by a
 * backslash, with one level of `{…}` inside. Group 1 is the character before the variable (or nothing at
 * the start), group 2 the variable with its braces.
 */
import { goTrimSpace } from '../../go/index.js';

const VARIABLE = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;

/** Every variable of `text`, in order (innermost ones where variables nest). */
export function findVariables(text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  if (!text.includes('{{')) return found;
  VARIABLE.lastIndex = 0;
  for (let m = VARIABLE.exec(text); m !== null; m = VARIABLE.exec(text)) found.push(m);
  return found;
}

/**
 * Kyverno's ReplaceAllVars (pkg/engine/variables/vars.go): every variable of `text` replaced by `word`
 * in one pass, the character before it kept; an escaped `\{{ }}` stays as it is. Where variables nest,
 * only the inner ones are replaced (`{{ a {{b}} }}` → `{{ a word }}`).
 */
export function replaceVariables(text: string, word: string): string {
  if (!text.includes('{{')) return text;
  return text.replace(VARIABLE, (_, before: string) => before + word);
}

/**
 * The expression of a variable's inside (between its braces): trimmed, without the shallow form's `-`
 * (replaceBracesAndTrimSpaces: strings.TrimSpace, whose spaces are Go's, not JavaScript's trim()'s).
 */
export function variableExpression(inside: string): string {
  const expression = goTrimSpace(inside);
  return expression.startsWith('-') ? goTrimSpace(expression.slice(1)) : expression;
}

/** `{{- … }}`: the inside, trimmed as replaceBracesAndTrimSpaces trims it, starts with `-`. */
export function isShallow(inside: string): boolean {
  return goTrimSpace(inside).startsWith('-');
}
