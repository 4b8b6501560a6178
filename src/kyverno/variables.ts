/**
 * `{{ … }}` variable substitution (pkg/engine/variables/vars.go), applied after `$(…)` references:
 *
 * - a variable is `{{ expr }}` not preceded by a backslash; `expr` is JMESPath and may hold one level
 *   of `{…}`; innermost variables resolve first and the string is re-scanned until none is left, so
 *   `{{ images.containers."{{element.name}}".tag }}` works and resolved text holding `{{…}}` is
 *   substituted again;
 * - a string that is exactly one variable takes the value's JSON type; inside a longer string a string
 *   value is inserted as is and anything else as compact Go-style JSON;
 * - `{{- expr }}` (shallow) inserts its value with `{{` escaped and stops the re-scanning;
 * - `\{{ … }}` is an escape: left alone, and `\{{` becomes `{{` at the end;
 * - `{{@}}` is the value at the same place in `request.object` (the string's path minus its first two
 *   segments, and minus everything up to `foreach`);
 * - for DELETE requests `request.object` in an expression reads `request.oldObject`;
 * - an expression that fails (unknown key in a bare field access, unknown function, syntax…) is an error.
 */
import type { JsonValue } from '../json/index.js';
import type { JsonContext } from './context.js';
import { KyvernoRuleError, messageOf } from './errors.js';
import { goJsonStringify } from './go/json.js';
import { substituteReferences } from './references.js';
import { mayHaveVariables, rewriteStrings } from './walk.js';

export interface SubstitutionScope {
  readonly ctx: JsonContext;
  /** The request is a DELETE: `request.object` reads `request.oldObject`. */
  readonly isDelete: boolean;
}

const VARIABLE = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;
/** Re-scans of one string before giving up (a value that expands into itself would loop forever). */
const MAX_PASSES = 64;

const hasVariable = (s: string) => s.includes('{{');

/** References, then variables, over a whole document. Throws KyvernoRuleError. */
export function substituteAll(document: JsonValue, scope: SubstitutionScope): JsonValue {
  if (!mayHaveVariables(document)) return document;
  const withReferences = substituteReferences(document);
  return rewriteStrings(withReferences, hasVariable, (text, path) => substituteString(text, path, scope));
}

/** Variables only, in one string whose place in its document is `path` (for `{{@}}`). */
export function substituteString(text: string, path: readonly string[], scope: SubstitutionScope): JsonValue {
  let value = text;
  let shallow = false;
  for (let pass = 0; ; pass++) {
    const matches = findVariables(value);
    if (matches.length === 0) break;
    if (pass >= MAX_PASSES) throw new KyvernoRuleError(`variable substitution in "${text}" does not terminate`);
    const original = value;
    for (const m of matches) {
      const prefix = m[1];
      const variable = m[2];
      let expression = variable.slice(2, -2).trim();
      let isShallow = false;
      if (expression.startsWith('-')) {
        isShallow = shallow = true;
        expression = expression.slice(1).trim();
      }
      const resolved = resolve(expression, path, scope);
      if (original === variable) return resolved;
      let replacement = typeof resolved === 'string' ? resolved : goJsonStringify(resolved);
      if (isShallow) replacement = replacement.replaceAll('{{', '\\{{');
      value = replaceFirst(value, prefix + variable, prefix + replacement);
    }
    if (shallow) break;
  }
  return value.includes('\\{{') ? value.replaceAll('\\{{', '{{') : value;
}

function findVariables(text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  if (!text.includes('{{')) return found;
  VARIABLE.lastIndex = 0;
  for (let m = VARIABLE.exec(text); m !== null; m = VARIABLE.exec(text)) found.push(m);
  return found;
}

function resolve(expression: string, path: readonly string[], scope: SubstitutionScope): JsonValue {
  let query = expression;
  if (query === '@') query = atPath(path);
  if (scope.isDelete) query = query.replaceAll('request.object', 'request.oldObject');
  try {
    return scope.ctx.query(query);
  } catch (error) {
    throw new KyvernoRuleError(`failed to resolve ${expression} at /${path.join('/')}: ${messageOf(error)}`);
  }
}

/** `{{@}}`: the JMESPath of the same place in request.object. */
function atPath(path: readonly string[]): string {
  const foreach = path.lastIndexOf('foreach');
  const rest = path.slice(foreach + 1).slice(2);
  let out = 'request.object';
  for (const segment of rest) {
    if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) out += `.${segment}`;
    else out += `.${JSON.stringify(segment)}`;
  }
  return out;
}

function replaceFirst(text: string, search: string, replacement: string): string {
  const i = text.indexOf(search);
  return i < 0 ? text : text.slice(0, i) + replacement + text.slice(i + search.length);
}

