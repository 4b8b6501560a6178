/**
 * Kyverno's variable syntax (pkg/engine/variables/regex RegexVariables): `{{ … }}` not preceded by a
 * backslash, with one level of `{…}` inside. Group 1 is the character before the variable (or nothing at
 * the start), group 2 the variable with its braces.
 */
const VARIABLE = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;

/** Every variable of `text`, in order (innermost ones where variables nest). */
export function findVariables(text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  if (!text.includes('{{')) return found;
  VARIABLE.lastIndex = 0;
  for (let m = VARIABLE.exec(text); m !== null; m = VARIABLE.exec(text)) found.push(m);
  return found;
}
